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
}
