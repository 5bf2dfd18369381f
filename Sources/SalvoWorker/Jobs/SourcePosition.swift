/// Where a Kafka record came from. It identifies a job for as long as the worker holds it (the
/// ledger's key, the position whose offset is committed once the job is done) and is written into
/// dead letters so an operator can find the original.
public struct SourcePosition: Sendable, Hashable, CustomStringConvertible {
    public var topic: String
    public var partition: Int32
    public var offset: Int64

    public init(topic: String, partition: Int32, offset: Int64) {
        self.topic = topic
        self.partition = partition
        self.offset = offset
    }

    public var description: String { "\(topic)/\(partition)@\(offset)" }
}
