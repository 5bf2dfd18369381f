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

    @Option(help: "Seconds to wait for the connection and for the answer, 0.001…3600. Default: 10.")
    var timeout: Double = 10

    /// `--timeout`'s range: shorter cannot connect, longer only hides a hung server (and an
    /// unbounded Double would overflow the conversion to a duration).
    static let timeoutRange: ClosedRange<Double> = 0.001...3_600

    @Flag(help: "Print the answer as one JSON object.")
    var json = false

    func validate() throws {
        guard Self.timeoutRange.contains(self.timeout) else {  // NaN is in no range
            throw ValidationError("--timeout must be a number of seconds within 0.001…3600, got \(self.timeout)")
        }
    }

    /// `configuration` with the timeouts, and h2c or TLS trusting `--ca-file` (else `caFile`,
    /// from a configuration file; else the configuration's own transport).
    func applied(
        to configuration: APNsConnection.Configuration, caFile fallback: String? = nil
    ) throws -> APNsConnection.Configuration {
        var configuration = configuration
        configuration.connectTimeout = .milliseconds(Int64(self.timeout * 1000))
        configuration.requestTimeout = .milliseconds(Int64(self.timeout * 1000))
        if self.h2c {
            configuration.transport = .plaintext
        } else if let caFile = self.caFile ?? fallback {
            configuration.transport = .tls(trustRoots: .certificates(try NIOSSLCertificate.fromPEMFile(caFile)))
        }
        return configuration
    }
}
