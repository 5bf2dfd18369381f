/// A record for the Kafka producer: key, value and headers, without the topic, which the worker's
/// configuration names (feedback, retry and dead-letter topics are configurable).
package struct OutgoingRecord: Sendable, Hashable {
    /// Nil lets the producer's partitioner spread records.
    package var key: [UInt8]?
    package var value: [UInt8]
    package var headers: [RecordHeader]

    package init(key: [UInt8]?, value: [UInt8], headers: [RecordHeader] = []) {
        self.key = key
        self.value = value
        self.headers = headers
    }

    /// The value of the first header named `name`, as text.
    package func header(_ name: String) -> String? {
        headers.first { $0.name == name }.map { String(decoding: $0.value, as: UTF8.self) }
    }
}
