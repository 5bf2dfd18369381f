/// Client stream credit: how many more requests may be in flight on this connection now.
public struct HTTP2StreamCredit: Sendable, Hashable {
    /// The peer's SETTINGS_MAX_CONCURRENT_STREAMS (before its first SETTINGS: the configured
    /// assumption).
    public var maxConcurrentStreams: Int
    /// Requests submitted and not yet closed.
    public var openStreams: Int

    public init(maxConcurrentStreams: Int, openStreams: Int) {
        self.maxConcurrentStreams = maxConcurrentStreams
        self.openStreams = openStreams
    }

    public var available: Int { max(0, self.maxConcurrentStreams - self.openStreams) }
}
