import Metrics
import SalvoKafka
import SalvoPrimitives

/// The Kafka side of the worker's RED metrics (docs/metrics.md, "Kafka"): rebalances, assigned
/// partitions and commits per consumer group, produce round trips per topic.
///
/// Every instrument is created up front, at zero, so a rate over it is 0 rather than empty before
/// the first event; afterwards the observers only look instruments up in immutable tables, which
/// is what lets them run on the clients' own threads.
final class WorkerKafkaMetrics: Sendable {
    private let produceDurations: [String: Metrics.Timer]

    init(topics: WorkerTopics) {
        let written = [topics.feedback, topics.deadLetter, topics.retry] + (topics.outcomes.map { [$0] } ?? [])
        produceDurations = Dictionary(
            written.map { topic in
                (
                    topic,
                    Metrics.Timer(
                        label: "salvo_kafka_produce_duration_seconds", dimensions: [("topic", topic)],
                        preferredDisplayUnit: .seconds)
                )
            },
            uniquingKeysWith: { first, _ in first })
    }

    /// Records acknowledged deliveries; failures are `salvo_kafka_produce_failures_total`, counted
    /// by the core, which knows what becomes of them.
    var producerObserver: KafkaProducerObserver {
        let durations = produceDurations
        return KafkaProducerObserver { topic, duration, acknowledged in
            guard acknowledged else { return }
            durations[topic]?.recordNanoseconds(duration.nanoseconds)
        }
    }

    /// The observer of the consumer of `group`.
    static func consumerObserver(group: String) -> KafkaConsumerObserver {
        let dimensions = [("group", group)]
        let rebalances = Counter(label: "salvo_consumer_rebalances_total", dimensions: dimensions)
        let assigned = Gauge(label: "salvo_consumer_assigned_partitions", dimensions: dimensions)
        let commits = Metrics.Timer(
            label: "salvo_consumer_commit_duration_seconds", dimensions: dimensions, preferredDisplayUnit: .seconds)
        let commitFailures = Counter(label: "salvo_consumer_commit_failures_total", dimensions: dimensions)
        assigned.record(0)
        return KafkaConsumerObserver(
            rebalanced: { isAssignment, count in
                if isAssignment { rebalances.increment() }
                assigned.record(count)
            },
            committed: { duration, succeeded in
                commits.recordNanoseconds(duration.nanoseconds)
                if !succeeded { commitFailures.increment() }
            })
    }
}
