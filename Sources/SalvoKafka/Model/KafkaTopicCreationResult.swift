/// The outcome of creating one topic. Creating a topic that exists is reported, not thrown, so
/// that setup commands can be re-run.
public struct KafkaTopicCreationResult: Hashable, Sendable {
    public enum Outcome: Hashable, Sendable {
        case created
        case alreadyExists
        case failed(KafkaError)
    }

    public var name: String
    public var outcome: Outcome

    public init(name: String, outcome: Outcome) {
        self.name = name
        self.outcome = outcome
    }
}
