import CRdKafka

/// Facts about the librdkafka shared library this process loaded at run time.
///
/// The library is resolved by the dynamic linker, not at build time: the same binary runs on
/// Debian's 2.0.2 or, through `LD_LIBRARY_PATH`, on a newer drop-in with the same soname. Tests
/// and `salvo version` print this so every result names the librdkafka it ran with.
public enum RDKafkaLibrary {
    /// The version string of the loaded librdkafka, e.g. `2.16.0`.
    public static var version: String {
        String(cString: rd_kafka_version_str())
    }

    /// The loaded librdkafka version as the integer `0xMMmmrrxx` (major, minor, revision, pre-release).
    public static var versionNumber: Int {
        Int(rd_kafka_version())
    }

    /// The oldest librdkafka Salvo supports, 2.3.0: older releases fail the ApiVersions v3
    /// handshake of current brokers ("Read underflow") and lack fixes the consumer relies on
    /// (docs/design.md). Debian 12 ships 2.0.2.
    public static let minimumVersion = (major: 2, minor: 3, string: "2.3.0")

    /// A one-line warning when the loaded librdkafka is older than ``minimumVersion``, else nil;
    /// `salvo worker` logs it at start and `salvo version` prints it.
    public static var versionWarning: String? {
        warning(forVersionNumber: versionNumber, version: version)
    }

    public static func warning(forVersionNumber number: Int, version: String) -> String? {
        let (major, minor) = ((number >> 24) & 0xff, (number >> 16) & 0xff)
        guard (major, minor) < (minimumVersion.major, minimumVersion.minor) else { return nil }
        return "librdkafka \(version) is older than the \(minimumVersion.string) Salvo needs: install a newer "
            + "librdkafka (or point LD_LIBRARY_PATH at one) before connecting to a current broker"
    }
}
