import NIOCore
import SalvoAPNs
import Testing

@testable import SalvoWorker

@Suite struct JobDecoderTests {
    @Test func perUserJobWithDefaults() throws {
        let job = try Fixtures.job(
            #"{"id":"j1","app":"news","token":"\#(Fixtures.tokenHex(7).uppercased())","payload":{"aps":{"alert":"hi"}}}"#
        )
        #expect(job.id == "j1")
        #expect(job.app == "news")
        #expect(job.campaignID == nil)
        #expect(job.environment == .production)
        #expect(job.headers.topic == "com.example.news")
        #expect(job.headers.pushType == .alert)
        #expect(job.headers.priority == .immediate)
        #expect(job.headers.expiration == nil)
        #expect(job.headers.collapseID == nil)
        #expect(job.notificationCount == 1)
        // Tokens are normalized to lowercase.
        #expect(job.tokens[0] == Fixtures.token(7))
        #expect(job.rejectedTokens.isEmpty)
    }

    @Test func payloadBytesPassThroughExactly() throws {
        // Spacing, key order, escapes and number forms must survive untouched.
        let payload = #"{ "aps" : {"alert":"caf\u00e9 \"q\"","sound":"default"}, "n": 1.50e3, "z":[true,false,null] }"#
        let job = try Fixtures.job(
            #"{"app":"news","payload":"# + payload + #","id":"j","token":"\#(Fixtures.tokenHex(1))"}"#)
        #expect(Fixtures.text(job.payload) == payload)
        let notification = job.notification(at: 0, job: job.reference(source: Fixtures.source))
        #expect(Fixtures.text(notification.payload) == payload)
    }

    @Test func payloadRawIsUnescapedAndTrimmed() throws {
        let job = try Fixtures.job(
            #"{"id":"j","app":"news","token":"\#(Fixtures.tokenHex(1))","payload_raw":" {\"aps\":{\"alert\":\"a\\nb\"}}\n"}"#
        )
        #expect(Fixtures.text(job.payload) == #"{"aps":{"alert":"a\nb"}}"#)
    }

    @Test func explicitHeadersAndEnvironment() throws {
        let job = try Fixtures.job(
            """
            {"id":"j","app":"chat","token":"\(Fixtures.tokenHex(1))","payload":{},
             "push_type":"voip","priority":5,"expiration":1700000000,"collapse_id":"c1",
             "environment":"production","campaign_id":"camp"}
            """)
        #expect(job.headers.topic == "com.example.chat.voip")
        #expect(job.headers.pushType == .voip)
        #expect(job.headers.priority == .powerConsiderate)
        #expect(job.headers.expiration?.secondsSince1970 == 1_700_000_000)
        #expect(job.headers.collapseID?.string == "c1")
        #expect(job.environment == .production)
        #expect(job.campaignID == "camp")
    }

    @Test func environmentDefaultsToTheApps() throws {
        let job = try Fixtures.job(#"{"id":"j","app":"chat","token":"\#(Fixtures.tokenHex(1))","payload":{}}"#)
        #expect(job.environment == .sandbox)
    }

    @Test func backgroundDefaultsToPriority5() throws {
        let job = try Fixtures.job(
            #"{"id":"j","app":"news","token":"\#(Fixtures.tokenHex(1))","payload":{"aps":{"content-available":1}},"push_type":"background"}"#
        )
        #expect(job.headers.priority == .powerConsiderate)
    }

    @Test func explicitTopicWins() throws {
        let job = try Fixtures.job(
            #"{"id":"j","app":"news","token":"\#(Fixtures.tokenHex(1))","payload":{},"topic":"com.example.other"}"#)
        #expect(job.headers.topic == "com.example.other")
    }

    @Test func unknownFieldsAndNullsAreIgnored() throws {
        let job = try Fixtures.job(
            """
            {"id":"j","app":"news","token":"\(Fixtures.tokenHex(1))","payload":{},"future":{"x":[1,2,{"y":null}]},
             "collapse_id":null,"campaign_id":null,"retry":{"attempt":"not read for jobs"}}
            """)
        #expect(job.headers.collapseID == nil)
        #expect(job.campaignID == nil)
    }

    @Test func campaignKeepsOrderAndRejectsOnlyBadTokens() throws {
        let json = """
            {"id":"c","app":"news","payload":{"aps":{"alert":"x"}},
             "tokens":["\(Fixtures.tokenHex(0))","nothex","\(Fixtures.tokenHex(2))","ab\\u0063d","\(Fixtures.tokenHex(4))"]}
            """
        let job = try Fixtures.job(json)
        #expect(job.notificationCount == 3)
        #expect(Array(job.tokens) == [Fixtures.token(0), Fixtures.token(2), Fixtures.token(4)])
        #expect(job.rejectedTokens.map(\.index) == [1, 3])
        #expect(job.rejectedTokens.map(\.text) == ["nothex", "abcd"])
        #expect(job.rejectedTokens.allSatisfy { $0.reason == .invalidToken })
    }

    @Test func duplicateTokensAreSentEachTime() throws {
        let hex = Fixtures.tokenHex(9)
        let job = try Fixtures.job(#"{"id":"c","app":"news","payload":{},"tokens":["\#(hex)","\#(hex.uppercased())"]}"#)
        #expect(job.notificationCount == 2)
        #expect(job.tokens[0] == job.tokens[1])
    }

    @Test func notificationsCarryTheJobAndADeterministicID() throws {
        let job = try Fixtures.job(Fixtures.campaignJSON(count: 3))
        let reference = job.reference(source: Fixtures.source)
        let notification = job.notification(at: 2, job: reference)
        #expect(notification.job == reference)
        #expect(notification.token == Fixtures.token(2))
        #expect(notification.attempt == 1)
        #expect(notification.apnsID == APNsID.deterministic(jobID: "campaign-1", token: Fixtures.token(2)))
        let request = try notification.request()
        #expect(request.apnsID == notification.apnsID)
        #expect(request.headers == job.headers)
    }

    @Test func rejectionsCarryTheIDAndAppWhenKnown() {
        let result = Fixtures.decode(
            #"{"id":"j9","app":"news","token":"\#(Fixtures.tokenHex(1))","payload":{},"priority":7}"#)
        guard case .failure(let rejection) = result else {
            Issue.record("expected a rejection")
            return
        }
        #expect(rejection.reason == .invalidPriority)
        #expect(rejection.jobID == "j9")
        #expect(rejection.app == "news")
    }

    @Test func readsAMessageAtANonZeroReaderIndex() throws {
        var buffer = ByteBuffer(string: "garbage")
        buffer.moveReaderIndex(forwardBy: 7)
        buffer.writeString(#"{"id":"j","app":"news","tokens":["\#(Fixtures.tokenHex(5))"],"payload":{"a":1}}"#)
        let job = try Fixtures.decoder.decode(buffer).get()
        #expect(job.tokens[0] == Fixtures.token(5))
        #expect(Fixtures.text(job.payload) == #"{"a":1}"#)
    }

    @Test func configurationIsValidated() {
        #expect(throws: SalvoWorkerError.self) {
            try JobDecoder(configuration: .init(apps: [:], maximumTokens: 0))
        }
        #expect(throws: SalvoWorkerError.self) {
            try JobDecoder(configuration: .init(apps: ["x": AppProfile(bundleID: "bad topic")]))
        }
    }

    /// The duplicate check remembers every member on its own: each is refused the second time,
    /// and none is mistaken for another.
    @Test func fieldSetTellsEveryMemberApart() {
        #expect(JobField.allCases.count <= 32)
        var set = JobField.SeenSet()
        var firsts: [Bool] = []
        var seconds: [Bool] = []
        for field in JobField.allCases { firsts.append(set.insert(field)) }
        for field in JobField.allCases { seconds.append(set.insert(field)) }
        #expect(firsts.allSatisfy { $0 })
        #expect(seconds.allSatisfy { !$0 })
        var single = JobField.SeenSet()
        let results = [single.insert(.tokens), single.insert(.token), single.insert(.tokens)]
        #expect(results == [true, true, false])
    }

    /// Member names are matched on their bytes: every member is found by its exact name and by
    /// no other, and a name spelled with escapes still counts (and still counts as a duplicate).
    @Test func memberNamesMatchOnTheirBytes() throws {
        for field in JobField.allCases {
            let name = Array(field.rawValue.utf8)
            #expect(name.withUnsafeBytes { JobField(name: $0) } == field)
            #expect((name + [UInt8(ascii: "x")]).withUnsafeBytes { JobField(name: $0) } == nil)
            // "tokens" less its last letter is "token", a member too.
            #expect(
                name.dropLast().withUnsafeBytes { JobField(name: UnsafeRawBufferPointer($0)) }
                    == JobField(rawValue: String(field.rawValue.dropLast())))
        }
        #expect(Array("ID".utf8).withUnsafeBytes { JobField(name: $0) } == nil)

        let escaped = try Fixtures.job(
            #"{"\u0069d":"j1","app":"news","to\u006ben":"\#(Fixtures.tokenHex(1))","payload":{}}"#)
        #expect(escaped.id == "j1")
        #expect(escaped.tokens.count == 1)
        let duplicate = Fixtures.decode(
            #"{"id":"j2","\u0069d":"j3","app":"news","token":"\#(Fixtures.tokenHex(1))","payload":{}}"#)
        guard case .failure(let rejection) = duplicate else {
            Issue.record("an escaped repeat of id was not refused")
            return
        }
        #expect(rejection.reason == .duplicateField)
    }
}
