import NIOCore
import SalvoHTTP2

/// Turns an ``APNsRequest`` into the HTTP/2 request a connection sends, with one allocation for
/// the whole header block: the pseudo-header fields that never change on a connection
/// (`:method`, `:scheme`, `:authority`) are encoded once and copied as bytes, the job's shared
/// fields and the token path are already bytes, and the payload buffer is shared, not copied.
struct APNsRequestEncoder: Sendable {
    private let prefix: HTTP2Headers
    private let prefixSize: Int

    /// Header bytes reserved per request beyond the prefix, path and bearer token: the job's
    /// fields and `apns-id` fit, so the block is never reallocated while being built.
    private static let fieldAllowance = 320

    init(authority: String, scheme: String) {
        var prefix = HTTP2Headers(minimumCapacity: 64 + authority.utf8.count)
        prefix.add(name: ":method", value: "POST")
        prefix.add(name: ":scheme", value: scheme)
        prefix.add(name: ":authority", value: authority)
        self.prefix = prefix
        // Three entries of 6 length bytes, the names (7 + 7 + 10), method, scheme and authority.
        self.prefixSize = 3 * 6 + 24 + 4 + scheme.utf8.count + authority.utf8.count
    }

    func encode(_ request: APNsRequest, authorization: APNsAuthorization?) -> HTTP2Request {
        let path = request.path
        var headers = HTTP2Headers(
            minimumCapacity: self.prefixSize + Self.fieldAllowance + path.count + (authorization?.headerValue.count ?? 0))
        headers.add(contentsOf: self.prefix)
        headers.add(name: ":path", value: path)
        for field in request.headers.fields {
            headers.add(name: field.name, value: field.value)
        }
        if let apnsID = request.apnsID {
            headers.add(name: APNsHeaderField.Name.apnsID, value: apnsID.headerValue)
        }
        if let authorization {
            headers.add(name: APNsHeaderField.Name.authorization, value: authorization.headerValue)
        }
        return HTTP2Request(headers: headers, body: request.payload)
    }
}
