import NIOCore
import SalvoAPNs
import Testing

@testable import SalvoWorker

@Suite struct PerTokenBadgeTests {
    private func payloads(_ payload: String, badge: Int = 7) throws -> (plain: String, badged: String) {
        let json = """
            {"id":"j","app":"news","payload":\(payload),
             "tokens":["\(Fixtures.tokenHex(1))","\(Fixtures.tokenHex(2))"],
             "per_token":{"\(Fixtures.tokenHex(2).uppercased())":{"badge":\(badge)}}}
            """
        let job = try Fixtures.job(json)
        return (Fixtures.text(job.payload(for: Fixtures.token(1))), Fixtures.text(job.payload(for: Fixtures.token(2))))
    }

    @Test func replacesAnExistingBadge() throws {
        let (plain, badged) = try payloads(#"{"aps":{"alert":"x","badge":1},"k":2}"#, badge: 42)
        #expect(plain == #"{"aps":{"alert":"x","badge":1},"k":2}"#)
        #expect(badged == #"{"aps":{"alert":"x","badge":42},"k":2}"#)
    }

    @Test func insertsIntoAps() throws {
        #expect(try payloads(#"{"k":0, "aps" : {"alert":"x"}}"#).badged == #"{"k":0, "aps" : {"badge":7,"alert":"x"}}"#)
        #expect(try payloads(#"{"aps":{ }}"#).badged == #"{"aps":{"badge":7 }}"#)
    }

    @Test func insertsApsWhenAbsent() throws {
        #expect(try payloads(#"{"data":{"badge":3}}"#).badged == #"{"aps":{"badge":7},"data":{"badge":3}}"#)
        #expect(try payloads(#"{}"#).badged == #"{"aps":{"badge":7}}"#)
    }

    @Test func splicedPayloadsAreValidJSONForTheDecoder() throws {
        for payload in [#"{"aps":{"badge":1}}"#, #"{"aps":{"a":1}}"#, #"{"aps":{}}"#, #"{"x":1}"#, #"{}"#] {
            let badged = try payloads(payload).badged
            let job = try Fixtures.job(
                #"{"id":"j","app":"news","token":"\#(Fixtures.tokenHex(1))","payload":"# + badged + "}")
            #expect(Fixtures.text(job.payload) == badged)
        }
    }

    @Test func notificationsGetTheirOwnPayload() throws {
        let job = try Fixtures.job(
            """
            {"id":"j","app":"news","payload":{"aps":{"badge":0}},
             "tokens":["\(Fixtures.tokenHex(1))","\(Fixtures.tokenHex(2))"],
             "per_token":{"\(Fixtures.tokenHex(2))":{"badge":5},"\(Fixtures.tokenHex(99))":{"badge":9}}}
            """)
        let reference = job.reference(source: Fixtures.source)
        #expect(Fixtures.text(job.notification(at: 0, job: reference).payload) == #"{"aps":{"badge":0}}"#)
        #expect(Fixtures.text(job.notification(at: 1, job: reference).payload) == #"{"aps":{"badge":5}}"#)
    }

    @Test func ambiguousPayloadsAreRejected() {
        for payload in [#"{"aps":1}"#, #"{"aps":{},"aps":{}}"#, #"{"aps":{"badge":1,"badge":2}}"#] {
            let json =
                #"{"id":"j","app":"news","payload":\#(payload),"token":"\#(Fixtures.tokenHex(1))","per_token":{"\#(Fixtures.tokenHex(1))":{"badge":1}}}"#
            #expect(Fixtures.decode(json).rejectionReason == .invalidPerToken, "\(payload)")
        }
    }

    @Test func splicedSizeIsCheckedAgainstThePushTypeLimit() {
        // 4094 bytes plus the spliced `"aps":{"badge":1},` would exceed 4096.
        let filler = String(repeating: "x", count: 4094 - #"{"f":""}"#.utf8.count)
        let payload = #"{"f":"\#(filler)"}"#
        let plain = #"{"id":"j","app":"news","payload":\#(payload),"token":"\#(Fixtures.tokenHex(1))"}"#
        #expect(Fixtures.decode(plain).rejectionReason == nil)
        let withBadge =
            #"{"id":"j","app":"news","payload":\#(payload),"token":"\#(Fixtures.tokenHex(1))","per_token":{"\#(Fixtures.tokenHex(1))":{"badge":1}}}"#
        #expect(Fixtures.decode(withBadge).rejectionReason == .payloadTooLarge)
    }
}

extension Result where Failure == JobRejection {
    /// The rejection's reason, or nil when decoding succeeded.
    var rejectionReason: JobRejection.Reason? {
        if case .failure(let rejection) = self { return rejection.reason }
        return nil
    }
}
