/// A complete request delivered by a server-mode `HTTP2SessionHandler` to the next handler.
/// Answer it by writing `HTTP2Command.respond(streamID:response:)` with the same `streamID`.
public struct HTTP2ReceivedRequest: Sendable, Equatable {
    public var streamID: Int32
    public var request: HTTP2Request

    public init(streamID: Int32, request: HTTP2Request) {
        self.streamID = streamID
        self.request = request
    }
}
