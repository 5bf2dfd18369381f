/// A SASL mechanism the front end can offer, named as Kafka's `sasl.enabled.mechanisms` and
/// librdkafka's `sasl.mechanisms` name it.
public enum KafkaSASLMechanism: String, CaseIterable, Sendable, Hashable, CustomStringConvertible {
    case scramSHA256 = "SCRAM-SHA-256"
    case scramSHA512 = "SCRAM-SHA-512"
    case plain = "PLAIN"

    public var description: String { rawValue }

    /// The hash of a SCRAM mechanism; `nil` for PLAIN.
    var scramHash: SCRAMHash? {
        switch self {
        case .scramSHA256: .sha256
        case .scramSHA512: .sha512
        case .plain: nil
        }
    }
}
