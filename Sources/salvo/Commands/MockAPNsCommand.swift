import ArgumentParser
import Logging
import NIOCore
import NIOPosix
import SalvoAPNs
import SalvoMockAPNs
import ServiceLifecycle
import UnixSignals

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `salvo mock-apns`: an APNs stand-in for load tests and SRE rehearsals. Prints its listening
/// addresses, serves until SIGTERM or SIGINT, then prints its totals and exits 0.
struct MockAPNsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mock-apns",
        abstract: "Run a mock APNs server (HTTP/2, Apple's validation, scriptable faults).",
        discussion: """
            TLS:  salvo mock-apns --tls-cert server.pem --tls-key server-key.pem [--client-ca ca.pem]
            h2c:  salvo mock-apns --h2c --listen 127.0.0.1:2197
            Test material: salvo mock-apns --generate-tls DIR [--bundle-id com.example.app]
            Scenario files: loadtest/scenarios/*.yaml, format in docs/mock-apns.md.
            """
    )

    @Option(help: "Address of the APNs (HTTP/2) listener, host:port (port 0 picks a free one).")
    var listen = "127.0.0.1:2197"

    @Option(name: .customLong("tls-cert"), help: "Server certificate chain (PEM).")
    var tlsCertificate: String?

    @Option(name: .customLong("tls-key"), help: "Server private key (PEM).")
    var tlsKey: String?

    @Option(name: .customLong("client-ca"), help: "CA whose client certificates authenticate (certificate mode).")
    var clientCA: String?

    @Flag(help: "Serve cleartext HTTP/2 (prior knowledge) instead of TLS.")
    var h2c = false

    @Option(help: "Address of the admin HTTP/1.1 listener (/metrics, /stats, controls), host:port, or 'off'.")
    var admin = "127.0.0.1:9101"

    @Option(
        name: .customLong("broadcast-listen"),
        help: "Address of the Live Activity channel-management (HTTP/2) listener, host:port (off when not given).")
    var broadcastListen: String?

    @Option(name: .customLong("channel-limit"), help: "Channels per app (Apple: 10000).")
    var channelLimit = 10_000

    @Option(
        name: .customLong("broadcast-disabled"),
        help: "Bundle id answered FeatureNotEnabled on broadcast endpoints (repeatable).")
    var broadcastDisabled: [String] = []

    @Option(
        name: .customLong("team-bundle"),
        help:
            "TEAM_ID:BUNDLE_ID a team's tokens may name on the broadcast endpoints (repeatable; others: TopicMismatch)."
    )
    var teamBundles: [String] = []

    @Option(help: "Scenario file (YAML or JSON): latency, dead tokens, throttling, errors, GOAWAY, resets.")
    var scenario: String?

    @Option(help: "Write one NDJSON line per accepted notification to this file.")
    var record: String?

    @Option(
        name: .customLong("token-key"),
        help: "Trusted provider-token key, KEY_ID:TEAM_ID:public-or-p8.pem (repeatable); enables token mode.")
    var tokenKeys: [String] = []

    @Option(help: "Apple environment to mimic: sandbox (adds apns-unique-id) or production.")
    var environment = "production"

    @Flag(name: .customLong("no-validation"), help: "Answer 200 to everything at once (load fast path).")
    var noValidation = false

    @Option(
        name: .customLong("generate-tls"),
        help: "Write a test CA, server and client certificates and a token key to DIR, then exit.")
    var generateTLS: String?

    @Option(
        name: .customLong("bundle-id"), help: "Bundle id put in the generated client certificate (with --generate-tls)."
    )
    var bundleID = "com.example.salvo"

    @Option(help: "Event-loop threads serving connections, 0…\(Self.maximumThreads); 0 means one per core.")
    var threads = 0

    /// More event loops than this only cost memory: the mock's work is per connection.
    static let maximumThreads = 256

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel = "info"

    /// Usage errors, before anything starts: a bad number is refused with its flag's name.
    func validate() throws {
        guard (0...Self.maximumThreads).contains(self.threads) else {
            throw ValidationError("--threads must be within 0…\(Self.maximumThreads), got \(self.threads)")
        }
        guard Logger.Level(rawValue: self.logLevel) != nil else {
            throw ValidationError("unknown --log-level \(self.logLevel)")
        }
        _ = try Self.parseAddress(self.listen, option: "--listen")
        if self.admin != "off" { _ = try Self.parseAddress(self.admin, option: "--admin") }
        if let broadcast = self.broadcastListen { _ = try Self.parseAddress(broadcast, option: "--broadcast-listen") }
        guard self.channelLimit >= 0 else { throw ValidationError("--channel-limit must not be negative") }
    }

    func run() async throws {
        if let directory = self.generateTLS {
            try self.generate(into: directory)
            return
        }
        var logger = Logger(label: "salvo.mock-apns")
        guard let level = Logger.Level(rawValue: self.logLevel) else {
            throw ValidationError("unknown --log-level \(self.logLevel)")
        }
        logger.logLevel = level
        let eventLoops = self.threads > 0 ? MultiThreadedEventLoopGroup(numberOfThreads: self.threads) : nil
        let server = try MockAPNsServer(
            configuration: try self.makeConfiguration(),
            eventLoopGroup: eventLoops ?? MultiThreadedEventLoopGroup.singleton,
            logger: logger)
        let addresses = try await server.start()
        let scheme = self.h2c ? "http" : "https"
        print("mock-apns listening on \(scheme)://\(addresses.apnsEndpoint) (scenario \(server.scenario.name))")
        if let admin = addresses.adminEndpoint { print("mock-apns admin on http://\(admin)") }
        if let channels = addresses.broadcastEndpoint {
            print("mock-apns channel management on \(scheme)://\(channels)")
        }
        fflush(nil)  // nil: every stream, so a parent reading the pipe sees the lines now

        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [server], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
        try await eventLoops?.shutdownGracefully()
        let stats = server.stats()
        print(
            "mock-apns stopped: \(stats.accepted) accepted, \(stats.rejectedTotal) rejected, \(stats.connectionsTotal) connections"
        )
        fflush(nil)  // nil: every stream, so a parent reading the pipe sees the lines now
    }

    private func makeConfiguration() throws -> MockAPNsServer.Configuration {
        var configuration = MockAPNsServer.Configuration()
        (configuration.host, configuration.port) = try Self.parseAddress(self.listen, option: "--listen")
        if self.admin != "off" {
            let (host, port) = try Self.parseAddress(self.admin, option: "--admin")
            configuration.adminHost = host
            configuration.adminPort = port
        }
        if let broadcast = self.broadcastListen {
            (configuration.broadcastHost, configuration.broadcastPort) = try Self.parseAddress(
                broadcast, option: "--broadcast-listen")
        }
        configuration.channelLimit = self.channelLimit
        configuration.broadcastFeatureDisabled = Set(self.broadcastDisabled)
        for pair in self.teamBundles {
            let parts = pair.split(separator: ":", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw ValidationError("--team-bundle wants TEAM_ID:BUNDLE_ID, got \(pair)")
            }
            configuration.teamBundleIDs[parts[0], default: []].insert(parts[1])
        }
        if self.h2c {
            guard self.tlsCertificate == nil, self.tlsKey == nil, self.clientCA == nil else {
                throw ValidationError("--h2c cannot be combined with --tls-cert, --tls-key or --client-ca")
            }
            configuration.transport = .h2c
        } else {
            guard let certificate = self.tlsCertificate, let key = self.tlsKey else {
                throw ValidationError(
                    "TLS needs --tls-cert and --tls-key (or use --h2c; --generate-tls DIR makes test files)")
            }
            configuration.transport = .tls(
                try .load(certificatePath: certificate, keyPath: key, clientCAPath: self.clientCA))
        }
        configuration.tokenKeys = try self.tokenKeys.map { try MockTokenKey(argument: $0) }
        guard let environment = APNsEnvironment.Kind(rawValue: self.environment) else {
            throw ValidationError("--environment must be sandbox or production")
        }
        configuration.environment = environment
        if let path = self.scenario { configuration.scenario = try MockScenario.load(path: path) }
        configuration.recordPath = self.record
        configuration.validation = self.noValidation ? .none : .apple
        return configuration
    }

    private func generate(into directory: String) throws {
        let material = try MockTLSMaterial.generate(topic: bundleID)
        let tokenKey = try material.write(to: directory)
        let file = { (name: String) in directory.hasSuffix("/") ? directory + name : directory + "/" + name }
        print("wrote test TLS material for topic \(bundleID) to \(directory)")
        print(
            "  server:  salvo mock-apns --tls-cert \(file(MockTLSMaterial.FileName.serverCertificate)) --tls-key \(file(MockTLSMaterial.FileName.serverPrivateKey)) --client-ca \(file(MockTLSMaterial.FileName.caCertificate)) --token-key \(tokenKey)"
        )
        print(
            "  client:  --cacert \(file(MockTLSMaterial.FileName.caCertificate)) [--cert \(file(MockTLSMaterial.FileName.clientCertificate)) --key \(file(MockTLSMaterial.FileName.clientPrivateKey))]"
        )
        print(
            "  token:   authorization: bearer $(cat \(file(MockTLSMaterial.FileName.providerToken)))  (valid for one hour)"
        )
    }

    /// `host:port` or `[v6]:port`.
    static func parseAddress(_ text: String, option: String) throws -> (String, Int) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (0...65_535).contains(port)
        else { throw ValidationError("\(option) wants host:port, got \(text)") }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw ValidationError("\(option) wants host:port, got \(text)") }
        return (host, port)
    }
}
