/// A Kafka record header. Salvo's own headers are named `salvo-…` and hold UTF-8 text.
public struct RecordHeader: Sendable, Hashable, CustomStringConvertible {
    public var name: String
    public var value: [UInt8]

    public init(name: String, value: [UInt8]) {
        self.name = name
        self.value = value
    }

    public init(name: String, text: String) {
        self.init(name: name, value: Array(text.utf8))
    }

    public var description: String { "\(name): \(String(decoding: value, as: UTF8.self))" }
}
