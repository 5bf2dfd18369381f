import Logging
import NIOCore
import NIOEmbedded
import Synchronization

@testable import SalvoAPNs

/// A pool over `FakeConnectionFactory` on a `NIOAsyncTestingEventLoop`, whose time moves only when
/// the test advances it.
struct PoolHarness {
    let loop = NIOAsyncTestingEventLoop()
    let factory = FakeConnectionFactory()
    let pool: APNsConnectionPool

    init(connections: Int = 1, configure: (inout APNsConnectionPool.Configuration) -> Void = { _ in }) {
        var configuration = APNsConnectionPool.Configuration()
        configuration.connectionCount = connections
        configuration.backoff.initial = .seconds(1)
        configuration.backoff.jitter = 0
        configure(&configuration)
        self.pool = APNsConnectionPool(
            factory: self.factory, environment: .custom(host: "127.0.0.1", port: 1, behavesAs: .sandbox),
            configuration: configuration, eventLoop: self.loop, metrics: APNsPoolMetrics(pool: "test"),
            logger: Logger(label: "test"), random: { 0 })
    }

    /// Runs `body` on the pool's event loop.
    @discardableResult
    func onLoop<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await self.loop.executeInContext(body)
    }

    /// Starts the pool and makes its connections ready, each with `maxConcurrentStreams`.
    func ready(maxConcurrentStreams: Int...) async throws -> [FakeConnection] {
        self.pool.start()
        await self.loop.run()
        let factory = self.factory
        return try await self.onLoop { maxConcurrentStreams.map { factory.succeed(maxConcurrentStreams: $0) } }
    }

    /// Waits (at most ~5 s) until `condition`, checked on the event loop, holds.
    func eventually(_ what: String, _ condition: @escaping @Sendable () -> Bool) async throws {
        for _ in 0..<5_000 {
            if try await self.onLoop(condition) { return }
            try await Task.sleep(for: .milliseconds(1))
        }
        throw HarnessTimeout(what: what)
    }

    /// Waits until `count` requests wait for credit.
    func waitUntilQueued(_ count: Int) async throws {
        for _ in 0..<5_000 {
            if await self.pool.snapshot().queued == count { return }
            try await Task.sleep(for: .milliseconds(1))
        }
        throw HarnessTimeout(what: "\(count) queued")
    }

    func shutdown() async {
        await self.loop.shutdownGracefully()
    }

    struct HarnessTimeout: Error {
        var what: String
    }

    /// Distinct, recognisable requests: request `i` goes to the token whose hex is `i`, padded.
    static func requests(_ count: Int, from start: Int = 0) -> [APNsRequest] {
        (start..<start + count).map { Self.request($0) }
    }

    static func request(_ number: Int) -> APNsRequest {
        let hex = String(number, radix: 16)
        let token = try! DeviceToken(hex: String(repeating: "0", count: 64 - hex.count) + hex)
        return try! APNsRequest(
            token: token, topic: "com.example.salvo", pushType: .alert,
            payload: ByteBuffer(string: #"{"aps":{"alert":"hi"}}"#))
    }

    static func number(of request: APNsRequest) -> Int {
        Int(request.token.hex, radix: 16)!
    }
}

/// A flag set from a task and read by the test.
final class Flag: Sendable {
    private let value = Atomic(false)
    func set() { self.value.store(true, ordering: .sequentiallyConsistent) }
    var isSet: Bool { self.value.load(ordering: .sequentiallyConsistent) }
}
