import ArgumentParser
import SalvoHTTP2
import SalvoKafka

/// Prints the versions of the C libraries loaded at run time, which is what operators need when a
/// broker or an HTTP/2 peer misbehaves.
struct VersionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "version",
        abstract: "Print the versions of salvo and the C libraries it loaded."
    )

    func run() {
        print("salvo \(SalvoVersion.current)")
        print("librdkafka \(RDKafkaLibrary.version)")
        print("libnghttp2 \(NGHTTP2Library.version)")
    }
}

enum SalvoVersion {
    static let current = "0.1.0"
}
