import NIOCore
import SalvoHTTP2

/// Turns an ``APNsRequest`` into the HTTP/2 request a connection sends: its own fields, `:path`
/// and `apns-id`, written into one small reused block, and a shared block
/// (``HTTP2SharedHeaders``) holding every field that repeats from request to request — `:method`,
/// `:scheme`, `:authority`, the job's fields, the bearer token — which nghttp2 reads in place.
/// The shared block is rebuilt when the job's fields or the token change; checking that is cheap
/// because the requests of one job, and those sharing a token, share their arrays (array equality
/// tests buffer identity first), and per-user jobs with equal fields keep it. The payload buffer
/// is shared, not copied. The session sends `:path` first, as HTTP/2 wants pseudo-header fields
/// (their order among themselves is free).
struct APNsRequestEncoder {
    /// Length bytes `HTTP2Headers` stores per field.
    private static let entryOverhead = 6

    private let authority: String
    private let scheme: String
    // The cache, kept as separate properties so that using it copies no more than the block.
    private var sharedFields: [APNsHeaderField]?
    private var sharedToken: [UInt8]?
    /// The shared block of the request last prepared.
    private(set) var sharedBlock = HTTP2SharedHeaders(HTTP2Headers())
    /// The own fields of the request last prepared, reused from request to request: once the
    /// previous request was submitted (nghttp2 copies these fields), the list is this encoder's
    /// alone again.
    private(set) var headers = HTTP2Headers()

    init(authority: String, scheme: String) {
        self.authority = authority
        self.scheme = scheme
    }

    /// - Parameter token: the `authorization` value (`bearer <JWT>`), nil for certificate auth.
    mutating func encode(_ request: APNsRequest, token: [UInt8]?) -> HTTP2Request {
        withUnsafePointer(to: request) { self.prepare($0, token: token) }
        return HTTP2Request(headers: self.headers, shared: self.sharedBlock, body: request.payload)
    }

    /// ``encode(_:token:)`` without building the request: leaves its own fields in ``headers``
    /// and its shared block in ``sharedBlock``, which the connection hands to the session with
    /// the payload (`HTTP2SessionHandler.submit(headers:shared:body:deadline:tag:)`). Reads the
    /// request in place in the pool's array (hot-path rule 1).
    mutating func prepare(_ request: UnsafePointer<APNsRequest>, token: [UInt8]?) {
        if self.sharedToken != token || self.sharedFields != request.pointee.headers.fields {
            self.rebuild(fields: request.pointee.headers.fields, token: token)
        }
        self.headers.removeAll(keepingCapacity: true)
        // Both written in place: no path or id bytes anywhere else first.
        self.headers.add(name: Self.pathName, valueCount: request.pointee.token.pathCount) {
            request.pointee.token.writePath(into: $0)
        }
        if let apnsID = request.pointee.apnsID {
            self.headers.add(name: Self.apnsIDName, valueCount: APNsID.textLength) { apnsID.write(into: $0) }
        }
    }

    private static let pathName: StaticString = ":path"
    private static let apnsIDName: StaticString = "apns-id"

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
        self.sharedBlock = HTTP2SharedHeaders(block)
    }
}
