/// The peer's SETTINGS in force.
public struct HTTP2RemoteSettings: Sendable, Hashable {
    public var maxConcurrentStreams: Int
    public var initialWindowSize: Int
    public var maxFrameSize: Int
    public var maxHeaderListSize: Int

    public init(maxConcurrentStreams: Int, initialWindowSize: Int, maxFrameSize: Int, maxHeaderListSize: Int) {
        self.maxConcurrentStreams = maxConcurrentStreams
        self.initialWindowSize = initialWindowSize
        self.maxFrameSize = maxFrameSize
        self.maxHeaderListSize = maxHeaderListSize
    }
}
