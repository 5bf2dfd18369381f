import NIOCore

/// What a pool needs from one connection: the real ``APNsConnection`` core, or a fake in tests
/// (Pushy's `ApnsChannelPoolTest` style). Confined to the pool's event loop.
protocol APNsPoolConnection: AnyObject {
    var id: APNsConnectionID { get }
    /// The server's SETTINGS_MAX_CONCURRENT_STREAMS in force.
    var maxConcurrentStreams: Int { get }
    /// Sends `request`. Its result comes back exactly once, on the event loop, through the
    /// delegate's `connection(_:completed:with:)` with `tag` — possibly before this returns (a
    /// request refused at once is `.failed(.notSent)`).
    ///
    /// A pointer into the caller's array, valid for the call only (hot-path rule 1,
    /// docs/performance-notes.md: ~170 instructions per request by value).
    func submit(_ request: UnsafePointer<APNsRequest>, deadline: NIODeadline, tag: UInt64)
    /// Stops new requests with a GOAWAY of our own; in-flight ones finish, then it closes.
    func retire()
    /// Closes at once; in-flight requests fail.
    func close()
}
