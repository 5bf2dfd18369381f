/// Header fields that many requests carry unchanged — a job's fields and its bearer token — and
/// that a session hands to nghttp2 by reference.
///
/// Why a separate, immutable block: nghttp2 copies and lower-cases every name and value of every
/// request it is given, and the session rebuilt every field's `nghttp2_nv` entry per request. A
/// block shared by reference is read in place (`NGHTTP2_NV_FLAG_NO_COPY_NAME`/`_VALUE`), and its
/// entries are built once per block and session, not per request: about 1,900 instructions of a
/// campaign request (`make bench-instructions`). Immutability is what makes the in-place reading
/// sound: the bytes nghttp2 points into cannot change while it may still read them, and a session
/// keeps each block it handed over alive until then (`NGHTTP2SharedEntries`).
///
/// A request carrying a block (``HTTP2Request/sharedHeaders``) sends its own pseudo-header fields,
/// then the block's fields in order, then its own regular fields.
public final class HTTP2SharedHeaders: Sendable, Equatable {
    public let headers: HTTP2Headers

    public init(_ headers: HTTP2Headers) {
        self.headers = headers
    }

    public static func == (lhs: HTTP2SharedHeaders, rhs: HTTP2SharedHeaders) -> Bool {
        lhs === rhs || lhs.headers == rhs.headers
    }
}
