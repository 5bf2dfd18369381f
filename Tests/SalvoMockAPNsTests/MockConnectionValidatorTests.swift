import SalvoAPNs
import SalvoHTTP2
import Testing

@testable import SalvoMockAPNs

/// The reused verdict must never answer differently from the full validator: every request of a
/// sequence is judged both ways.
@Suite("MockConnectionValidator: a repeated header set reuses the verdict, never changing it")
struct MockConnectionValidatorTests {
    static func headers(_ push: TestPush) -> HTTP2Headers {
        HTTP2Headers([(":method", push.method), (":path", push.path ?? "/3/device/\(push.token)")] + push.headers)
    }

    static func bodySize(_ push: TestPush) -> Int { push.body.utf8.count }

    @Test("a sequence of repeats and deviations gets the validator's verdict for each request")
    func sameVerdicts() {
        var connection = MockConnectionValidator()
        let validator = APNsRequestValidator()
        let base = TestPush().adding("authorization", "bearer a.b.c")
        var sequence: [TestPush] = [base, base]
        var other = base
        other.token = TestPush.token(42)
        sequence.append(other)
        sequence.append(base.adding("apns-id", "6f1e2c3d-4b5a-4c6d-8e7f-0a1b2c3d4e5f"))
        sequence.append(base.adding("apns-id", "not-an-id"))
        sequence.append(
            base.adding("apns-id", "6f1e2c3d-4b5a-4c6d-8e7f-0a1b2c3d4e5f").adding(
                "apns-id", "6f1e2c3d-4b5a-4c6d-8e7f-0a1b2c3d4e5f"))
        var shortToken = base
        shortToken.token = "abcd"
        var badPath = base
        badPath.path = "/3/devices/\(TestPush.validToken)"
        var get = base
        get.method = "GET"
        var empty = base
        empty.body = ""
        var large = base
        large.body = String(repeating: "x", count: 4097)
        sequence += [shortToken, base, badPath, base, get, base, empty, base, large, base]
        sequence += [base.with("apns-priority", "7"), base.with("apns-priority", "7"), base]
        var voip = base.with("apns-topic", "com.example.salvo.voip").with("apns-push-type", "voip")
        voip.body = String(repeating: "x", count: 5000)
        sequence += [voip, voip, base]

        for (index, push) in sequence.enumerated() {
            let (verdict, apnsID) = connection.inspect(Self.headers(push), bodySize: Self.bodySize(push))
            let expected = validator.inspect(
                method: Array(push.method.utf8), path: Array((push.path ?? "/3/device/\(push.token)").utf8),
                headers: push.headers.map { APNsHeaderField(name: Array($0.0.utf8), value: Array($0.1.utf8)) },
                bodySize: Self.bodySize(push))
            #expect(verdict == expected, "request \(index)")
            let sentID = push.headers.first { $0.0 == "apns-id" }?.1
            #expect(apnsID.map { String(decoding: $0, as: UTF8.self) } == sentID, "request \(index)")
        }
    }

    @Test("a new validator (authentication resolved) forgets the reused verdict")
    func newValidatorForgets() {
        var connection = MockConnectionValidator()
        let push = TestPush()
        guard case .accepted = connection.inspect(Self.headers(push), bodySize: Self.bodySize(push)).0 else {
            Issue.record("the first request is valid")
            return
        }
        connection.validator = APNsRequestValidator(isTopicAllowed: { _ in false })
        #expect(connection.inspect(Self.headers(push), bodySize: Self.bodySize(push)).0 == .rejected(.topicDisallowed))
    }
}
