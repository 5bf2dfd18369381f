/// A Kafka record header. Salvo's own headers are named `salvo-…` and hold UTF-8 text.
package struct RecordHeader: Sendable, Hashable, CustomStringConvertible {
    package var name: String
    package var value: [UInt8]

    package init(name: String, value: [UInt8]) {
        self.name = name
        self.value = value
    }

    package init(name: String, text: String) {
        self.init(name: name, value: Array(text.utf8))
    }

    package var description: String { "\(name): \(String(decoding: value, as: UTF8.self))" }
}
