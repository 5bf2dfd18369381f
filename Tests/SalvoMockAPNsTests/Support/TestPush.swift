import NIOCore
import SalvoAPNs
import SalvoHTTP2

/// Builds APNs-shaped HTTP/2 requests; every part can be left out or bent to break one rule.
struct TestPush {
    static let validToken = String(repeating: "ab", count: 32)
    static let topic = "com.example.salvo"
    static let payload = #"{"aps":{"alert":"hello from the mock tests"}}"#

    var method = "POST"
    var path: String? = nil
    var token = TestPush.validToken
    var headers: [(String, String)] = [
        ("apns-topic", TestPush.topic), ("apns-push-type", "alert"), ("apns-priority", "10"),
    ]
    var body = TestPush.payload

    /// A token unique to `index`, valid hex of the usual 64 characters.
    static func token(_ index: Int) -> String {
        let hex = String(index, radix: 16)
        return String(repeating: "0", count: 64 - hex.count) + hex
    }

    func with(_ name: String, _ value: String?) -> TestPush {
        var copy = self
        copy.headers.removeAll { $0.0 == name }
        if let value { copy.headers.append((name, value)) }
        return copy
    }

    func adding(_ name: String, _ value: String) -> TestPush {
        var copy = self
        copy.headers.append((name, value))
        return copy
    }

    var request: HTTP2Request {
        HTTP2Request(
            method: self.method, authority: "localhost", path: self.path ?? "/3/device/\(self.token)",
            headers: HTTP2Headers(self.headers), body: ByteBuffer(string: self.body))
    }
}

extension HTTP2Response {
    /// Apple's `reason`, parsed by SalvoAPNs as the client would.
    var reason: APNsReason? {
        guard let body else { return nil }
        return APNsErrorBody(parsing: body.readableBytesView)?.reason
    }

    var errorBody: APNsErrorBody? {
        guard let body else { return nil }
        return APNsErrorBody(parsing: body.readableBytesView)
    }

    var apnsID: String? { self.headers.first(name: "apns-id") }
}
