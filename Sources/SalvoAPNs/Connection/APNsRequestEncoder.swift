import NIOCore
import SalvoHTTP2

/// Turns an ``APNsRequest`` into the HTTP/2 request a connection sends, writing as few pieces as
/// possible into one header block: `:path`, then a cached block holding every field that repeats
/// from request to request — `:method`, `:scheme`, `:authority`, the job's fields, the bearer
/// token — then the request's `apns-id`. The cache is rebuilt when the job's fields or the token
/// change; checking that is cheap because the requests of one job, and those sharing a token,
/// share their arrays (array equality tests buffer identity first). The payload buffer is shared,
/// not copied. Pseudo-header fields stay first, as HTTP/2 requires (their order among themselves
/// is free).
struct APNsRequestEncoder {
    /// Length bytes `HTTP2Headers` stores per field.
    private static let entryOverhead = 6

    private let authority: String
    private let scheme: String
    // The cache, kept as separate properties so that using it copies no more than the block.
    private var sharedFields: [APNsHeaderField]?
    private var sharedToken: [UInt8]?
    private var sharedBlock = HTTP2Headers()
    /// Holds the request's `apns-id` text while it is copied into the header block.
    private var idScratch = ByteBuffer()
    /// The header block of the request being encoded, reused from request to request: once the
    /// previous request was submitted (nghttp2 copies the fields), it is this encoder's alone again.
    private var headers = HTTP2Headers()

    init(authority: String, scheme: String) {
        self.authority = authority
        self.scheme = scheme
        self.idScratch.reserveCapacity(APNsID.textLength)
    }

    /// - Parameter token: the `authorization` value (`bearer <JWT>`), nil for certificate auth.
    mutating func encode(_ request: APNsRequest, token: [UInt8]?) -> HTTP2Request {
        if self.sharedToken != token || self.sharedFields != request.headers.fields {
            self.rebuild(fields: request.headers.fields, token: token)
        }
        self.headers.removeAll(keepingCapacity: true)
        // Written straight from the token: no path array per request.
        let pathName: StaticString = ":path"
        request.token.withPath { path in
            self.headers.add(
                name: UnsafeRawBufferPointer(start: pathName.utf8Start, count: pathName.utf8CodeUnitCount), value: path)
        }
        self.headers.add(contentsOf: self.sharedBlock)
        if let apnsID = request.apnsID {
            self.idScratch.clear()
            self.idScratch.writeWithUnsafeMutableBytes(minimumWritableBytes: APNsID.textLength) { buffer in
                apnsID.write(into: buffer)
                return APNsID.textLength
            }
            self.headers.add(name: "apns-id", value: self.idScratch)
        }
        return HTTP2Request(headers: self.headers, body: request.payload)
    }

    private mutating func rebuild(fields: [APNsHeaderField], token: [UInt8]?) {
        var size =
            3 * Self.entryOverhead + ":method".utf8.count + "POST".utf8.count + ":scheme".utf8.count
            + self.scheme.utf8.count + ":authority".utf8.count + self.authority.utf8.count
        for field in fields { size += Self.entryOverhead + field.name.count + field.value.count }
        if let token { size += Self.entryOverhead + APNsHeaderField.Name.authorization.count + token.count }
        var block = HTTP2Headers(minimumCapacity: size)
        block.add(name: ":method", value: "POST")
        block.add(name: ":scheme", value: self.scheme)
        block.add(name: ":authority", value: self.authority)
        for field in fields {
            block.add(name: field.name, value: field.value)
        }
        if let token {
            block.add(name: APNsHeaderField.Name.authorization, value: token)
        }
        self.sharedFields = fields
        self.sharedToken = token
        self.sharedBlock = block
    }
}
