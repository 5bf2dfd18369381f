import ArgumentParser
import SalvoHTTP2
import SalvoKafka

/// Prints the versions of salvo and of the C libraries loaded at run time, which is what operators
/// need when a broker or an HTTP/2 peer misbehaves. `salvo --version` prints the same.
struct VersionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "version",
        abstract: "Print the versions of salvo and the C libraries it loaded."
    )

    /// `salvo 0.1.0`, `librdkafka 2.3.0`, `libnghttp2 1.52.0`, one a line; then a warning line when
    /// the librdkafka loaded is older than the one Salvo needs.
    static var text: String {
        let warning = RDKafkaLibrary.versionWarning.map { "\nwarning: \($0)" } ?? ""
        return
            "salvo \(SalvoVersion.current)\nlibrdkafka \(RDKafkaLibrary.version)\nlibnghttp2 \(NGHTTP2Library.version)"
            + warning
    }

    func run() {
        print(Self.text)
    }
}

enum SalvoVersion {
    static let current = "0.1.0"
}
