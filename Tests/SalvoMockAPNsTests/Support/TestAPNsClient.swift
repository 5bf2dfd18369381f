import NIOCore
import NIOPosix
import NIOSSL
import SalvoHTTP2
import Synchronization

/// One HTTP/2 connection to the mock through the project's own client (`HTTP2SessionHandler` in
/// client mode, over NIOSSL or h2c), recording the HTTP/2 events the server causes (SETTINGS,
/// GOAWAY) so tests can assert on them from any thread.
final class TestAPNsClient: Sendable {
    let channel: any Channel
    let events: EventLog

    /// Records `HTTP2Event`s under a lock: written on the event loop, read by the test.
    final class EventLog: ChannelInboundHandler, Sendable {
        typealias InboundIn = HTTP2ReceivedRequest
        private let recorded = Mutex<[HTTP2Event]>([])

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if let event = event as? HTTP2Event { self.recorded.withLock { $0.append(event) } }
            context.fireUserInboundEventTriggered(event)
        }

        var all: [HTTP2Event] { self.recorded.withLock { $0 } }

        var goAways: [HTTP2GoAway] {
            self.all.compactMap { if case .goAwayReceived(let goAway) = $0 { return goAway } else { return nil } }
        }

        var maxConcurrentStreamsSeen: [Int] {
            self.all.compactMap {
                if case .remoteSettingsChanged(let settings) = $0 {
                    return settings.maxConcurrentStreams
                } else {
                    return nil
                }
            }
        }
    }

    private init(channel: any Channel, events: EventLog) {
        self.channel = channel
        self.events = events
    }

    /// Connects to `port` on 127.0.0.1; `tls` nil means h2c.
    static func connect(
        port: Int, tls: TLSConfiguration?, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    )
        async throws -> TestAPNsClient
    {
        let sslContext = try tls.map { try NIOSSLContext(configuration: $0) }
        let events = EventLog()
        let channel = try await ClientBootstrap(group: group)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    if let sslContext {
                        try pipeline.addHandler(NIOSSLClientHandler(context: sslContext, serverHostname: "localhost"))
                    }
                    try pipeline.addHandler(HTTP2SessionHandler(mode: .client))
                    try pipeline.addHandler(events)
                }
            }
            .connect(host: "127.0.0.1", port: port)
            .get()
        return TestAPNsClient(channel: channel, events: events)
    }

    /// Sends one request and waits for its response (or its HTTP2Error).
    func send(_ request: HTTP2Request, timeout: TimeAmount = .seconds(10)) async throws -> HTTP2Response {
        let response = self.write(request, timeout: timeout)
        self.channel.flush()
        return try await response.get()
    }

    /// Writes one request command. A write that never reaches the session handler (the channel
    /// closed, e.g. after GOAWAY) would leave the response promise pending forever, so a failed
    /// write fails it.
    private func write(_ request: HTTP2Request, timeout: TimeAmount) -> EventLoopFuture<HTTP2Response> {
        let promise = self.channel.eventLoop.makePromise(of: HTTP2Response.self)
        let written = self.channel.eventLoop.makePromise(of: Void.self)
        written.futureResult.whenFailure { promise.fail($0) }
        self.channel.write(
            HTTP2Command.request(request, deadline: .now() + timeout, response: promise), promise: written)
        return promise.futureResult
    }

    /// Sends requests concurrently on this connection and returns the results in order.
    func sendAll(
        _ requests: [HTTP2Request], timeout: TimeAmount = .seconds(10)
    ) async -> [Result<HTTP2Response, any Error>] {
        let futures = requests.map { self.write($0, timeout: timeout) }
        self.channel.flush()
        var results: [Result<HTTP2Response, any Error>] = []
        for future in futures {
            do { results.append(.success(try await future.get())) } catch { results.append(.failure(error)) }
        }
        return results
    }

    func close() async {
        try? await self.channel.close()
    }
}
