import NIOCore
import NIOEmbedded
import SalvoHTTP2
import Testing

/// A client-mode and a server-mode handler on two `EmbeddedChannel`s sharing one
/// `EmbeddedEventLoop`, with bytes shuttled between them by `interact()` (swift-nio-http2's
/// `interactInMemory`). Every byte in each direction is also parsed into a `FrameLog`.
final class InMemoryConnection {
    let loop = EmbeddedEventLoop()
    let client: EmbeddedChannel
    let server: EmbeddedChannel
    let clientHandler: HTTP2SessionHandler
    let serverHandler: HTTP2SessionHandler
    let responder: TestResponder
    let clientEvents = EventRecorder()
    let serverEvents = EventRecorder()
    private(set) var clientToServer = FrameLog(expectsPreface: true)
    private(set) var serverToClient = FrameLog(expectsPreface: false)

    init(
        client clientConfiguration: HTTP2SessionHandler.Configuration = .init(),
        server serverConfiguration: HTTP2SessionHandler.Configuration = .init(),
        policy: TestResponder.Policy = TestResponder.echo
    ) throws {
        self.clientHandler = HTTP2SessionHandler(mode: .client, configuration: clientConfiguration)
        self.serverHandler = HTTP2SessionHandler(mode: .server, configuration: serverConfiguration)
        self.responder = TestResponder(policy: policy)
        self.client = EmbeddedChannel(handlers: [self.clientHandler, self.clientEvents], loop: self.loop)
        self.server = EmbeddedChannel(
            handlers: [self.serverHandler, self.responder, self.serverEvents], loop: self.loop)
        let serverHandler = self.serverHandler
        self.responder.observeOpenStreams = { serverHandler.openStreamCount }
        let address = try SocketAddress(ipAddress: "127.0.0.1", port: 443)
        try self.client.connect(to: address).wait()
        try self.server.connect(to: address).wait()
    }

    /// Moves bytes both ways until neither side has anything to send.
    func interact() throws {
        for _ in 0..<10_000 {
            self.loop.run()  // flushes scheduled for the end of the tick
            var moved = false
            while let bytes = try self.client.readOutbound(as: ByteBuffer.self) {
                self.clientToServer.append(bytes)
                if self.server.isActive { try self.server.writeInbound(bytes) }
                moved = true
            }
            while let bytes = try self.server.readOutbound(as: ByteBuffer.self) {
                self.serverToClient.append(bytes)
                if self.client.isActive { try self.client.writeInbound(bytes) }
                moved = true
            }
            if !moved { return }
        }
        Issue.record("the two sessions kept talking for 10,000 rounds")
    }

    /// Answers the requests the responder holds with 200, oldest first, one per exchange, until
    /// none is held or `maxRounds` passed; `afterEach` runs after each answer's exchange.
    func answerHeldOneByOne(maxRounds: Int, afterEach: () -> Void = {}) throws {
        var rounds = 0
        while !self.responder.held.isEmpty, rounds < maxRounds {
            rounds += 1
            let held = self.responder.held.removeFirst()
            try self.serverHandler.respond(streamID: held.streamID, HTTP2Response(status: 200))
            try self.interact()
            afterEach()
        }
    }

    /// Submits a request through the client handler and returns its future.
    func send(
        path: String,
        body: String = "",
        headers: HTTP2Headers = HTTP2Headers(),
        deadline: NIODeadline? = nil
    ) -> EventLoopFuture<HTTP2Response> {
        let promise = self.loop.makePromise(of: HTTP2Response.self)
        let request = HTTP2Request(authority: "localhost", path: path, headers: headers, body: ByteBuffer(string: body))
        self.clientHandler.submit(request, deadline: deadline, promise: promise)
        self.clientHandler.flush()
        return promise.futureResult
    }

    /// Submits one tagged request per tag (path `pathPrefix/tag`), answered to `delegate` (held
    /// weakly: the caller keeps it), and lets them reach the server.
    func submitTagged(_ tags: Range<UInt64>, pathPrefix: String, delegate: any HTTP2ResponseDelegate) throws {
        self.clientHandler.responseDelegate = delegate
        for tag in tags {
            self.clientHandler.submit(HTTP2Request(authority: "localhost", path: "\(pathPrefix)/\(tag)"), tag: tag)
        }
        try self.interact()
    }

    /// Closes both channels; safe to call twice (tests call it in `defer`).
    func close() {
        _ = try? self.client.finish(acceptAlreadyClosed: true)
        _ = try? self.server.finish(acceptAlreadyClosed: true)
    }
}

extension EventLoopFuture {
    /// The result of an already completed future (Embedded tests never wait).
    var settled: Result<Value, any Error>? {
        var result: Result<Value, any Error>?
        self.assumeIsolated().whenComplete { result = $0 }
        return result
    }
}

extension Result {
    var http2Error: HTTP2Error? {
        if case .failure(let error) = self { return error as? HTTP2Error }
        return nil
    }

    var response: Success? {
        if case .success(let value) = self { return value }
        return nil
    }
}
