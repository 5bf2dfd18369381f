import Logging
import NIOCore
import NIOEmbedded
import SalvoHTTP2
import Testing

@testable import SalvoAPNs

/// The connection core between a real client-mode `HTTP2SessionHandler` and a recording pool, on
/// an `EmbeddedChannel` whose peer the test plays with raw frames.
@Suite("APNsConnectionHandler on an EmbeddedChannel")
struct APNsConnectionHandlerTests {
    /// Records what the connection tells its pool, in order.
    final class RecordingPool: APNsPoolConnectionDelegate {
        var events: [String] = []
        var results: [UInt64: APNsConnectionResult] = [:]

        func connection(_ id: APNsConnectionID, completed tag: UInt64, with result: APNsConnectionResult) {
            self.events.append("completed \(tag)")
            self.results[tag] = result
        }
        func connection(_ id: APNsConnectionID, maxConcurrentStreamsChanged value: Int) {
            self.events.append("max \(value)")
        }
        func connectionDraining(_ id: APNsConnectionID) { self.events.append("draining") }
        func connectionClosed(_ id: APNsConnectionID, error: APNsError?) { self.events.append("closed") }
    }

    /// An empty SETTINGS frame (the server's first), and one with MAX_CONCURRENT_STREAMS = value.
    static func settingsFrame(maxConcurrentStreams: UInt32? = nil) -> ByteBuffer {
        var buffer = ByteBuffer()
        let length = maxConcurrentStreams == nil ? 0 : 6
        buffer.writeBytes([0, 0, UInt8(length), 4, 0, 0, 0, 0, 0])
        if let maxConcurrentStreams {
            buffer.writeInteger(UInt16(3))
            buffer.writeInteger(maxConcurrentStreams)
        }
        return buffer
    }

    private func makeConnection() throws -> (EmbeddedChannel, APNsConnectionHandler, RecordingPool, ReadyFlag) {
        let session = HTTP2SessionHandler(mode: .client)
        let ready = ReadyFlag()
        let handler = APNsConnectionHandler(
            id: APNsConnectionID(rawValue: 77), session: session,
            encoder: APNsRequestEncoder(authority: "127.0.0.1", scheme: "http"), authorizationSource: nil,
            configuration: APNsConnection.Configuration(), metrics: nil, readsUniqueID: false,
            logger: Logger(label: "test"), onSetup: { result in ready.result = result.map { _ in () } })
        let pool = RecordingPool()
        handler.delegate = pool
        session.responseDelegate = handler.responseRelay
        let channel = EmbeddedChannel(handlers: [session, handler])
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 2197)).wait()
        return (channel, handler, pool, ready)
    }

    final class ReadyFlag {
        var result: Result<Void, APNsError>?
    }

    private let request = try! APNsRequest(
        token: DeviceToken(hex: String(repeating: "ab", count: 32)), topic: "com.example.salvo", pushType: .alert,
        payload: ByteBuffer(string: "{}"))

    @Test("ready at the server's first SETTINGS; a later SETTINGS change reaches the pool")
    func readiness() throws {
        let (channel, handler, pool, ready) = try self.makeConnection()
        defer { _ = try? channel.finish() }
        #expect(ready.result == nil)
        try channel.writeInbound(Self.settingsFrame(maxConcurrentStreams: 50))
        #expect((try? ready.result?.get()) != nil)
        #expect(handler.maxConcurrentStreams == 50)
        try channel.writeInbound(Self.settingsFrame(maxConcurrentStreams: 1))
        #expect(pool.events == ["max 1"])
    }

    @Test("a connection dying with requests in flight reports its close first, then every request")
    func deathWithRequestsInFlight() throws {
        let (channel, handler, pool, _) = try self.makeConnection()
        try channel.writeInbound(Self.settingsFrame())
        withUnsafePointer(to: self.request) { handler.submit($0, deadline: .now() + .seconds(30), tag: 1) }
        channel.embeddedEventLoop.run()  // the scheduled flush sends the HEADERS
        withUnsafePointer(to: self.request) { handler.submit($0, deadline: .now() + .seconds(30), tag: 2) }
        try channel.close().wait()
        #expect(pool.events.first == "closed")
        #expect(Set(pool.events.dropFirst()) == ["completed 1", "completed 2"])
        if case .failed(let error) = pool.results[1] {
            #expect(error.code == .connectionLost)
        } else {
            Issue.record("request 1 left on the wire: it may have been processed")
        }
        if case .failed(let error) = pool.results[2] {
            #expect(error.code == .notSent)
        } else {
            Issue.record("request 2 never left: it must be not sent")
        }
    }

    @Test("a request to a connection that is not ready fails at once as not sent")
    func notReady() throws {
        let (channel, handler, pool, _) = try self.makeConnection()
        defer { _ = try? channel.finish() }
        withUnsafePointer(to: self.request) { handler.submit($0, deadline: .now() + .seconds(30), tag: 9) }
        guard case .failed(let error) = pool.results[9] else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.code == .notSent)
    }
}
