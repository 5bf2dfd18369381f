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
    /// Bytes a request adds to the shared block: `:path` and `apns-id` entries and a 36-byte id.
    private static let perRequestSize = 2 * entryOverhead + ":path".utf8.count + APNsHeaderField.Name.apnsID.count + APNsID.textLength

    private let authority: String
    private let scheme: String
    // The cache, kept as separate properties so that using it copies no more than the block.
    private var sharedFields: [APNsHeaderField]?
    private var sharedToken: [UInt8]?
    private var sharedBlock = HTTP2Headers()
    private var sharedSize = 0
    /// Holds the request's `apns-id` text while it is copied into the header block.
    private var idScratch = ByteBuffer()

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
        let path = request.path
        var headers = HTTP2Headers(minimumCapacity: self.sharedSize + Self.perRequestSize + path.count)
        headers.add(name: ":path", value: path)
        headers.add(contentsOf: self.sharedBlock)
        if let apnsID = request.apnsID {
            self.idScratch.clear()
            self.idScratch.writeWithUnsafeMutableBytes(minimumWritableBytes: APNsID.textLength) { buffer in
                apnsID.write(into: buffer)
                return APNsID.textLength
            }
            headers.add(name: "apns-id", value: self.idScratch)
        }
        return HTTP2Request(headers: headers, body: request.payload)
    }

    private mutating func rebuild(fields: [APNsHeaderField], token: [UInt8]?) {
        var size = 3 * Self.entryOverhead + ":method".utf8.count + "POST".utf8.count + ":scheme".utf8.count
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
        self.sharedSize = size
    }
}
