import NIOCore
import SalvoAPNs
import Testing

@testable import SalvoWorker

/// Every bad job must produce its documented reason code, so dashboards and dead-letter
/// consumers can rely on the codes.
@Suite struct JobRejectionCorpusTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: [UInt8]
        var reason: JobRejection.Reason
        var testDescription: String { name }

        init(name: String, json: String, reason: JobRejection.Reason) {
            self.init(name: name, bytes: Array(json.utf8), reason: reason)
        }

        init(name: String, bytes: [UInt8], reason: JobRejection.Reason) {
            self.name = name
            self.bytes = bytes
            self.reason = reason
        }
    }

    static let t1 = Fixtures.tokenHex(1)
    static let ok = #""id":"j","app":"news","token":"\#(t1)","payload":{"aps":{"alert":"x"}}"#

    static let corpus: [Case] = [
        Case(name: "empty message", json: "", reason: .malformedJSON),
        Case(name: "truncated object", json: #"{"id":"j","app":"news""#, reason: .malformedJSON),
        Case(name: "trailing garbage", json: "{\(ok)} x", reason: .malformedJSON),
        Case(name: "missing comma", json: #"{"id":"j" "app":"news"}"#, reason: .malformedJSON),
        Case(name: "bad escape", json: #"{"id":"j\q",\#(ok)}"#, reason: .malformedJSON),
        Case(
            name: "invalid UTF-8", bytes: Array(#"{"x":""#.utf8) + [0xC3, 0x28] + Array("\",\(ok)}".utf8),
            reason: .malformedJSON),
        Case(
            name: "raw control character", bytes: Array(#"{"x":"a"#.utf8) + [0x0A] + Array("\",\(ok)}".utf8),
            reason: .malformedJSON),
        Case(name: "leading zero number", json: #"{\#(ok),"expiration":01}"#, reason: .malformedJSON),
        Case(
            name: "nesting too deep",
            json: "{\(ok),\"x\":" + String(repeating: "[", count: 70) + String(repeating: "]", count: 70) + "}",
            reason: .malformedJSON),
        Case(name: "array at top level", json: "[\(ok.count)]", reason: .notAnObject),
        Case(name: "string at top level", json: #""job""#, reason: .notAnObject),
        Case(name: "duplicate id", json: #"{"id":"a",\#(ok)}"#, reason: .duplicateField),
        Case(name: "missing id", json: #"{"app":"news","token":"\#(t1)","payload":{}}"#, reason: .missingField),
        Case(name: "null app", json: #"{"id":"j","app":null,"token":"\#(t1)","payload":{}}"#, reason: .missingField),
        Case(name: "missing tokens", json: #"{"id":"j","app":"news","payload":{}}"#, reason: .missingField),
        Case(name: "missing payload", json: #"{"id":"j","app":"news","token":"\#(t1)"}"#, reason: .missingField),
        Case(
            name: "mdm without topic",
            json: #"{"id":"j","app":"news","token":"\#(t1)","payload":{},"push_type":"mdm"}"#, reason: .missingField),
        Case(name: "numeric id", json: #"{"id":5,"app":"news","token":"\#(t1)","payload":{}}"#, reason: .invalidField),
        Case(name: "empty id", json: #"{"id":"","app":"news","token":"\#(t1)","payload":{}}"#, reason: .invalidField),
        Case(
            name: "non-string token in array", json: #"{"id":"j","app":"news","tokens":["\#(t1)",7],"payload":{}}"#,
            reason: .invalidField),
        Case(
            name: "tokens is a string", json: #"{"id":"j","app":"news","tokens":"\#(t1)","payload":{}}"#,
            reason: .invalidField),
        Case(
            name: "token and tokens",
            json: #"{"id":"j","app":"news","token":"\#(t1)","tokens":["\#(t1)"],"payload":{}}"#,
            reason: .conflictingFields),
        Case(name: "payload and payload_raw", json: #"{\#(ok),"payload_raw":"{}"}"#, reason: .conflictingFields),
        Case(
            name: "unknown app", json: #"{"id":"j","app":"weather","token":"\#(t1)","payload":{}}"#, reason: .unknownApp
        ),
        Case(
            name: "empty token list", json: #"{"id":"j","app":"news","tokens":[],"payload":{}}"#,
            reason: .emptyTokenList),
        Case(
            name: "invalid single token", json: #"{"id":"j","app":"news","token":"xyz","payload":{}}"#,
            reason: .invalidToken),
        Case(
            name: "odd-length token", json: #"{"id":"j","app":"news","token":"\#(t1)a","payload":{}}"#,
            reason: .invalidToken),
        Case(
            name: "every campaign token invalid", json: #"{"id":"j","app":"news","tokens":["zz","00"],"payload":{}}"#,
            reason: .invalidToken),
        Case(
            name: "payload is a string", json: #"{"id":"j","app":"news","token":"\#(t1)","payload":"hi"}"#,
            reason: .invalidPayload),
        Case(
            name: "payload_raw not JSON", json: #"{"id":"j","app":"news","token":"\#(t1)","payload_raw":"{aps}"}"#,
            reason: .invalidPayload),
        Case(
            name: "payload_raw an array", json: #"{"id":"j","app":"news","token":"\#(t1)","payload_raw":"[1]"}"#,
            reason: .invalidPayload),
        Case(
            name: "payload over 4096",
            json:
                #"{"id":"j","app":"news","token":"\#(t1)","payload":{"a":"\#(String(repeating: "x", count: 4100))"}}"#,
            reason: .payloadTooLarge),
        Case(
            name: "voip payload over 5120",
            json:
                #"{"id":"j","app":"news","token":"\#(t1)","push_type":"voip","payload":{"a":"\#(String(repeating: "x", count: 5200))"}}"#,
            reason: .payloadTooLarge),
        Case(name: "unknown push type", json: #"{\#(ok),"push_type":"banner"}"#, reason: .invalidPushType),
        Case(name: "uppercase push type", json: #"{\#(ok),"push_type":"ALERT"}"#, reason: .invalidPushType),
        Case(name: "priority 7", json: #"{\#(ok),"priority":7}"#, reason: .invalidPriority),
        Case(name: "priority as string", json: #"{\#(ok),"priority":"10"}"#, reason: .invalidPriority),
        Case(name: "priority 10.0", json: #"{\#(ok),"priority":10.0}"#, reason: .invalidPriority),
        Case(
            name: "background at priority 10", json: #"{\#(ok),"push_type":"background","priority":10}"#,
            reason: .invalidPriority),
        Case(
            name: "voip topic without suffix", json: #"{\#(ok),"push_type":"voip","topic":"com.example.news"}"#,
            reason: .invalidTopic),
        Case(name: "topic with a space", json: #"{\#(ok),"topic":"com.example news"}"#, reason: .invalidTopic),
        Case(name: "negative expiration", json: #"{\#(ok),"expiration":-1}"#, reason: .invalidExpiration),
        Case(name: "expiration as string", json: #"{\#(ok),"expiration":"tomorrow"}"#, reason: .invalidExpiration),
        Case(
            name: "collapse id too long", json: #"{\#(ok),"collapse_id":"\#(String(repeating: "c", count: 65))"}"#,
            reason: .invalidCollapseID),
        Case(name: "unknown environment", json: #"{\#(ok),"environment":"staging"}"#, reason: .invalidEnvironment),
        Case(
            name: "per_token key not a token", json: #"{\#(ok),"per_token":{"abc":{"badge":1}}}"#,
            reason: .invalidPerToken),
        Case(
            name: "per_token unknown member", json: #"{\#(ok),"per_token":{"\#(t1)":{"badge":1,"sound":"x"}}}"#,
            reason: .invalidPerToken),
        Case(
            name: "per_token negative badge", json: #"{\#(ok),"per_token":{"\#(t1)":{"badge":-1}}}"#,
            reason: .invalidPerToken),
        Case(
            name: "per_token same token twice",
            json: #"{\#(ok),"per_token":{"\#(t1)":{"badge":1},"\#(t1.uppercased())":{"badge":2}}}"#,
            reason: .invalidPerToken),
    ]

    @Test(arguments: corpus)
    func rejected(_ testCase: Case) {
        let result = Fixtures.decoder.decode(ByteBuffer(bytes: testCase.bytes))
        guard case .failure(let rejection) = result else {
            Issue.record("\(testCase.name): decoded, expected \(testCase.reason)")
            return
        }
        #expect(rejection.reason == testCase.reason, "\(testCase.name): \(rejection.message)")
        #expect(!rejection.message.isEmpty)
    }

    @Test func corpusCoversEveryJobReason() {
        let covered = Set(Self.corpus.map(\.reason))
        let jobReasons = Set(JobRejection.Reason.all).subtracting([.jobTooLarge, .tooManyTokens, .invalidRetry])
        #expect(jobReasons.subtracting(covered).isEmpty)
        #expect(Self.corpus.count >= 20)
    }

    @Test func sizeLimitsAreEnforced() throws {
        let small = try JobDecoder(configuration: .init(apps: Fixtures.apps, maximumJobBytes: 64, maximumTokens: 2))
        let long = #"{\#(Self.ok),"padding":"\#(String(repeating: "p", count: 64))"}"#
        #expect(small.decode(ByteBuffer(string: long)).rejectionReason == .jobTooLarge)
        let fewTokens = try JobDecoder(configuration: .init(apps: Fixtures.apps, maximumTokens: 2))
        let three =
            #"{"id":"j","app":"news","payload":{},"tokens":["\#(Fixtures.tokenHex(1))","\#(Fixtures.tokenHex(2))","\#(Fixtures.tokenHex(3))"]}"#
        #expect(fewTokens.decode(ByteBuffer(string: three)).rejectionReason == .tooManyTokens)
    }

    @Test func everyReasonCodeIsDistinctSnakeCase() {
        let codes = JobRejection.Reason.all.map(\.code)
        #expect(Set(codes).count == codes.count)
        #expect(codes.allSatisfy { $0.allSatisfy { $0.isLowercase || $0 == "_" } })
    }
}
