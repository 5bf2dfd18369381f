/// What a ``KafkaTopicReader`` hands its handler, in the order it happened.
public enum KafkaTopicReaderEvent: Sendable {
    /// One record, in offset order within its partition.
    case message(KafkaConsumerMessage)
    /// Every partition has been read up to at least the end it had when the reader started.
    /// Sent once; later records keep arriving as `.message`.
    case caughtUp
    /// A fatal client error or a partition's read error (librdkafka retries the transient ones by
    /// itself; this is for the log and for readers that must give up).
    case error(KafkaError)
}
