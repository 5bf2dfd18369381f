/// What a producer reports for metrics, without this module depending on a metrics library: the
/// worker turns it into `salvo_kafka_produce_duration_seconds`.
///
/// Called on the producer's event thread, so it must be quick and must not block or call back
/// into the producer.
public struct KafkaProducerObserver: Sendable {
    /// A message's delivery report arrived: its topic, how long after it was handed to librdkafka,
    /// and whether the broker acknowledged it.
    public var delivered: @Sendable (_ topic: String, _ duration: Duration, _ acknowledged: Bool) -> Void

    public init(delivered: @escaping @Sendable (_ topic: String, _ duration: Duration, _ acknowledged: Bool) -> Void) {
        self.delivered = delivered
    }
}
