import Foundation

/// A broker that requires authentication, for tests: a Tansu of its own behind a
/// ``KafkaSASLFrontEnd``, with Tansu advertising the front end's address, so that every
/// connection a client makes — the bootstrap one and those to the brokers Metadata names — goes
/// through SASL (and TLS when asked).
///
/// The front end binds first (port 0), then Tansu starts on a port of its own choosing
/// (`tcp://127.0.0.1:0`, read back from /proc) advertising the front end's port: no port is
/// picked and released, so no other test can take one in between.
///
/// ```swift
/// let broker = try await AuthenticatingTestBroker.start(mechanisms: [.scramSHA512], users: ["alice": "secret"])
/// // bootstrap.servers = broker.address; stop with `await broker.stop()` (or withCleanUp)
/// ```
public final class AuthenticatingTestBroker: Sendable {
    /// Clients bootstrap here: the front end, `127.0.0.1:port`.
    public var address: String { frontEnd.address }
    /// Tansu's own plain listener, reachable without credentials (for set-up by the test itself).
    public let upstreamAddress: String
    public let frontEnd: KafkaSASLFrontEnd
    private let tansu: BackgroundProcess

    /// Starts a Tansu (from `SALVO_TEST_TANSU`, which scripts/with-broker.sh sets, unless `tansu`
    /// names one) with memory storage, and the front end before it.
    public static func start(
        mechanisms: [KafkaSASLMechanism], users: [String: String], tls: KafkaSASLFrontEnd.TLS? = nil,
        tansu: URL? = nil
    ) async throws -> AuthenticatingTestBroker {
        let executable = try tansu ?? tansuExecutable()
        let frontEnd = try await KafkaSASLFrontEnd.bind(upstream: nil, mechanisms: mechanisms, users: users, tls: tls)
        let process: BackgroundProcess
        let port: Int
        do {
            process = try BackgroundProcess(
                name: "tansu behind \(frontEnd.address)", executable: executable,
                arguments: [
                    "broker", "--listener-url", "tcp://127.0.0.1:0",
                    "--advertised-listener-url", "tcp://127.0.0.1:\(frontEnd.port)",
                    "--storage-engine", "memory://tansu/",
                ])
        } catch {
            await frontEnd.stop()
            throw error
        }
        do {
            port = try process.listeningPort(timeout: .seconds(20))
        } catch {
            let state = process.isRunning ? "still running" : "exited"
            let output = "stdout:\n\(process.stdout.suffix(2_000))\nstderr:\n\(process.stderr.suffix(2_000))"
            await process.stop()
            await frontEnd.stop()
            throw TestFailure("\(error)\n(tansu \(state))\n\(output)")
        }
        frontEnd.setUpstream(host: "127.0.0.1", port: port)
        return AuthenticatingTestBroker(frontEnd: frontEnd, tansu: process, upstreamPort: port)
    }

    private init(frontEnd: KafkaSASLFrontEnd, tansu: BackgroundProcess, upstreamPort: Int) {
        self.frontEnd = frontEnd
        self.tansu = tansu
        self.upstreamAddress = "127.0.0.1:\(upstreamPort)"
    }

    /// Tansu's path from the environment; missing means the tests were not started through
    /// scripts/with-broker.sh, which must fail loudly rather than skip.
    public static func tansuExecutable() throws -> URL {
        guard let path = ProcessInfo.processInfo.environment["SALVO_TEST_TANSU"], !path.isEmpty else {
            throw TestFailure(
                "SALVO_TEST_TANSU is not set: run the tests through `make test` or `scripts/with-broker.sh swift test ...`"
            )
        }
        return URL(fileURLWithPath: path)
    }

    /// Tansu's log so far, for a failing test's message.
    public var brokerLog: String { tansu.stdout + tansu.stderr }

    /// Stops the front end, then Tansu. Tansu is killed: it catches SIGTERM and, once clients have
    /// connected, did not exit within BackgroundProcess's 10 s grace (measured: every test paid
    /// it), and its memory storage has nothing to keep.
    public func stop() async {
        await frontEnd.stop()
        tansu.killAndWait()
    }
}
