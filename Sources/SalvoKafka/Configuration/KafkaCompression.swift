/// Producer batch compression (`compression.codec`).
public struct KafkaCompression: Hashable, Sendable, CustomStringConvertible {
    /// The librdkafka name of the codec.
    public let name: String

    private init(_ name: String) { self.name = name }

    public var description: String { name }

    public static let none = KafkaCompression("none")
    public static let gzip = KafkaCompression("gzip")
    public static let snappy = KafkaCompression("snappy")
    public static let lz4 = KafkaCompression("lz4")
    public static let zstd = KafkaCompression("zstd")

    /// All codecs, for parsing command-line options.
    public static let all: [KafkaCompression] = [.none, .gzip, .snappy, .lz4, .zstd]
}
