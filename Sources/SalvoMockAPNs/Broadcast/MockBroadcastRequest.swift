import NIOCore
import SalvoHTTP2

/// What the channel-management and broadcast rules read from an HTTP/2 request: method, path,
/// the header fields by name (duplicates kept) and the body. Built once per request; these
/// endpoints see a few requests a second, not the campaign rates the push path is tuned for.
struct MockBroadcastRequest: Sendable {
    var method: String
    var path: String
    var fields: [String: [String]]
    var body: ByteBuffer

    init(method: String, path: String, fields: [String: [String]] = [:], body: ByteBuffer = ByteBuffer()) {
        self.method = method
        self.path = path
        self.fields = fields
        self.body = body
    }

    init(_ request: HTTP2Request) {
        var fields: [String: [String]] = [:]
        for header in request.headers where !header.name.hasPrefix(":") {
            fields[header.name, default: []].append(header.value)
        }
        self.init(method: request.method ?? "", path: request.path ?? "", fields: fields, body: request.body)
    }

    /// The first value of a header.
    func first(_ name: String) -> String? { self.fields[name]?.first }

    /// The `apns-request-id` sent, when it is a UUID.
    var requestID: APNsRequestIDField {
        guard let values = self.fields["apns-request-id"] else { return .absent }
        guard values.count == 1, let id = UUIDText(values[0]) else { return .invalid }
        return .valid(id.text)
    }

    enum APNsRequestIDField: Equatable {
        case absent
        case valid(String)
        case invalid
    }

    /// A canonical UUID (8-4-4-4-12 hexadecimal digits), as `apns-request-id` takes.
    struct UUIDText {
        let text: String

        init?(_ text: String) {
            let utf8 = Array(text.utf8)
            guard utf8.count == 36 else { return nil }
            for (index, byte) in utf8.enumerated() {
                if [8, 13, 18, 23].contains(index) {
                    guard byte == UInt8(ascii: "-") else { return nil }
                } else {
                    let isHex = (48...57).contains(byte) || (65...70).contains(byte) || (97...102).contains(byte)
                    guard isHex else { return nil }
                }
            }
            self.text = text
        }
    }
}
