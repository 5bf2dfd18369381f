import ArgumentParser
import NIOSSL
import SalvoAPNs

/// How `salvo send` and `salvo channels` reach APNs or the mock, and how they print: `--ca-file`,
/// `--h2c`, `--timeout`, `--json`.
struct ChannelsTransportFlags: ParsableArguments {
    @Option(name: .customLong("ca-file"), help: "Trust this PEM CA instead of the system roots (the mock).")
    var caFile: String?

    @Flag(help: "Cleartext HTTP/2 (h2c), for a local mock only.")
    var h2c = false

    @Option(help: "How long to wait for the connection and for the answer (e.g. 10s, 500ms), 1ms…1h. Default: 10s.")
    var timeout: DurationArgument = .seconds(10)

    /// `--timeout`'s range: shorter cannot connect, longer only hides a hung server.
    static let timeoutRange: ClosedRange<Duration> = .milliseconds(1)...(.seconds(3_600))

    @Flag(help: "Print the answer as one JSON object.")
    var json = false

    func validate() throws {
        guard Self.timeoutRange.contains(self.timeout.duration) else {
            throw ValidationError("--timeout must be within 1ms…1h, got \(self.timeout)")
        }
    }

    /// `configuration` with the timeouts, and h2c or TLS trusting `--ca-file` (else `caFile`,
    /// from a configuration file; else the configuration's own transport).
    func applied(
        to configuration: APNsConnection.Configuration, caFile fallback: String? = nil
    ) throws -> APNsConnection.Configuration {
        var configuration = configuration
        configuration.connectTimeout = self.timeout.duration
        configuration.requestTimeout = self.timeout.duration
        if self.h2c {
            configuration.transport = .plaintext
        } else if let caFile = self.caFile ?? fallback {
            configuration.transport = .tls(trustRoots: .certificates(try NIOSSLCertificate.fromPEMFile(caFile)))
        }
        return configuration
    }
}
