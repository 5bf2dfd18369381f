import Metrics
import SalvoAPNs
import SalvoKafka

/// The worker's instruments (docs/metrics.md, "Worker"), created once and cached by their
/// dimensions: a notification costs a dictionary lookup and an increment, never a new instrument.
///
/// Confined to the core's event loop like the core that owns it.
final class WorkerMetrics {
    private struct NotificationKey: Hashable {
        var app: String
        var outcome: String
        var reason: String
    }

    private var notifications: [NotificationKey: Counter] = [:]
    /// `delivered` by app. The hot outcome is counted locally for the app seen last (a run of
    /// one job's notifications compares one string, by identity) and added to its counter when
    /// the app changes or the core publishes its statistics (every 50 ms).
    private var delivered: [String: Counter] = [:]
    private var deliveredApp = ""
    private var deliveredUnflushed = 0
    /// `salvo_jobs_total` by lane and result, created on first use (index: lane × results + result).
    private var jobs: [Counter?] = Array(repeating: nil, count: MetricsLane.allCases.count * JobResult.allCases.count)
    private var deadLetters: [String: Counter] = [:]
    private var feedback: [NotificationKey: Counter] = [:]
    private var produceFailures: [String: Counter] = [:]
    /// `salvo_broadcasts_total` by outcome, and `salvo_live_activity_warnings_total` by kind.
    private var broadcasts: [String: Counter] = [:]
    private var liveActivityWarnings: [String: Counter] = [:]
    private let latency: [Metrics.Timer] = MetricsLane.allCases.map {
        Metrics.Timer(
            label: "salvo_end_to_end_latency_seconds", dimensions: [("lane", $0.rawValue)],
            preferredDisplayUnit: .seconds)
    }
    private var lag: [KafkaTopicPartition: Gauge] = [:]
    private let rateLimitedApp = Counter(label: "salvo_rate_limited_total", dimensions: [("limit", "app")])
    private let rateLimitedDevice = Counter(label: "salvo_rate_limited_total", dimensions: [("limit", "device")])
    let inFlight = Gauge(label: "salvo_notifications_in_flight")
    /// The adaptive flight limit (``AdaptiveWindow``).
    let flightLimit = Gauge(label: "salvo_dispatch_flight_limit")
    let retryDepth = Gauge(label: "salvo_retry_queue_depth")
    let parked = Gauge(label: "salvo_notifications_parked")
    let delayed = Gauge(label: "salvo_notifications_delayed")
    /// 1 while the commit gate holds new work back (``CommitGate``).
    let commitGateClosed = Gauge(label: "salvo_commit_gate_closed")
    /// Notifications of revoked partitions dropped unsent (the next owner sends them).
    let droppedOnRevoke = Counter(label: "salvo_revoke_dropped_notifications_total")
    /// Jobs of revoked partitions given up with work in flight (the next owner may send it again).
    let unsettledOnRevoke = Counter(label: "salvo_revoke_unsettled_jobs_total")
    /// Notifications a job's checkpoint let a new owner skip.
    let resumedFromCheckpoint = Counter(label: "salvo_checkpoint_skipped_notifications_total")
    /// Jobs (records) a checkpoint recorded complete, completed again without sending.
    let skippedJobs = Counter(label: "salvo_checkpoint_skipped_jobs_total")
    /// Times a job reached `kafka.max_unconfirmed_sends` and waited for a checkpoint's acknowledgement.
    let checkpointWaits = Counter(label: "salvo_checkpoint_waits_total")
    let checkpointWaitSeconds = FloatingPointCounter(label: "salvo_checkpoint_wait_seconds_total")
    private var poolHealth: [WorkerPoolKey: Gauge] = [:]
    private var abandoned: [String: Counter] = [:]
    private var withoutBody: [String: Counter] = [:]
    private let queued: [Lane: Gauge] = Dictionary(
        uniqueKeysWithValues: Lane.allCases.map {
            ($0, Gauge(label: "salvo_notifications_queued", dimensions: [("lane", $0.rawValue)]))
        })

    /// Creates, at zero, the series alerts watch for rare events (dead letters of sent
    /// notifications, refused produces), so `/metrics` shows them before the first one happens and
    /// a rate over them is 0 rather than empty.
    init(topics: WorkerTopics) {
        for code in [
            DeadLetterReason.retriesExhaustedCode, DeadLetterReason.apnsRejectedCode,
            DeadLetterReason.invalidRequestCode,
        ] {
            _ = Self.cached(&deadLetters, code) {
                Counter(label: "salvo_dead_letters_total", dimensions: [("reason", code)])
            }
        }
        for topic in [topics.feedback, topics.deadLetter, topics.retry] {
            _ = Self.cached(&produceFailures, topic) {
                Counter(label: "salvo_kafka_produce_failures_total", dimensions: [("topic", topic)])
            }
            _ = Self.cached(&withoutBody, topic) {
                Counter(label: "salvo_dead_letters_without_body_total", dimensions: [("refused_topic", topic)])
            }
        }
        for outcome in ["delivered", "dead_lettered", "retry_scheduled"] {
            _ = Self.cached(&broadcasts, outcome) {
                Counter(label: "salvo_broadcasts_total", dimensions: [("outcome", outcome)])
            }
        }
        for (_, kind) in LiveActivityWarnings.labels {
            _ = Self.cached(&liveActivityWarnings, kind) {
                Counter(label: "salvo_live_activity_warnings_total", dimensions: [("kind", kind)])
            }
        }
        _ = Self.cached(&abandoned, topics.deadLetter) {
            Counter(label: "salvo_records_abandoned_total", dimensions: [("topic", topics.deadLetter)])
        }
    }

    /// Creates `salvo_feedback_events_total` at zero for every app and feedback reason, so a
    /// feedback rate reads 0 (not empty) before the first dead token.
    func startAtZero(apps: [String]) {
        for app in apps {
            for reason in APNsReason.documented where reason.producesFeedback {
                let key = NotificationKey(app: app, outcome: "", reason: reason.metricLabel)
                _ = Self.cached(&feedback, key) {
                    Counter(label: "salvo_feedback_events_total", dimensions: [("app", app), ("reason", key.reason)])
                }
            }
        }
    }

    func delivered(app: String) {
        if app != deliveredApp {
            flushDelivered()
            deliveredApp = app
        }
        deliveredUnflushed += 1
    }

    /// Adds the locally counted deliveries to their counter.
    func flushDelivered() {
        guard deliveredUnflushed > 0 else { return }
        let app = deliveredApp
        Self.cached(&delivered, app) {
            Counter(
                label: "salvo_notifications_total",
                dimensions: [("app", app), ("outcome", "delivered"), ("reason", "")])
        }.increment(by: deliveredUnflushed)
        deliveredUnflushed = 0
    }

    /// `outcome`: `invalid_token`, `dead_lettered`, `retry_scheduled`, `retry_handed_off`, `replayed`.
    func notification(app: String, outcome: String, reason: String, count: Int = 1) {
        let key = NotificationKey(app: app, outcome: outcome, reason: reason)
        Self.cached(&notifications, key) {
            Counter(
                label: "salvo_notifications_total",
                dimensions: [("app", app), ("outcome", outcome), ("reason", reason)])
        }.increment(by: count)
    }

    /// How a job ended, the `result` dimension of `salvo_jobs_total`.
    enum JobResult: String, CaseIterable {
        case completed
        case rejected

        /// Position in `allCases`, for the counters kept in an array.
        var index: Int {
            switch self {
            case .completed: 0
            case .rejected: 1
            }
        }
    }

    /// Counted once per job, so per-user mode pays it per notification: an array slot, no key built.
    func job(lane: MetricsLane, result: JobResult) {
        let index = lane.index * JobResult.allCases.count + result.index
        if let counter = jobs[index] {
            counter.increment()
            return
        }
        let counter = Counter(
            label: "salvo_jobs_total", dimensions: [("lane", lane.rawValue), ("result", result.rawValue)])
        jobs[index] = counter
        counter.increment()
    }

    func deadLetter(reason: String) {
        Self.cached(&deadLetters, reason) {
            Counter(label: "salvo_dead_letters_total", dimensions: [("reason", reason)])
        }.increment()
    }

    func feedbackEvent(app: String, reason: String) {
        Self.cached(&feedback, NotificationKey(app: app, outcome: "", reason: reason)) {
            Counter(label: "salvo_feedback_events_total", dimensions: [("app", app), ("reason", reason)])
        }.increment()
    }

    /// One broadcast job's outcome: `delivered`, `retry_scheduled`, `dead_lettered`, `cancelled`,
    /// `abandoned` (left unsent to the partition's next owner by a revoke or a drain).
    func broadcast(outcome: String) {
        Self.cached(&broadcasts, outcome) {
            Counter(label: "salvo_broadcasts_total", dimensions: [("outcome", outcome)])
        }.increment()
    }

    /// A Live Activity payload a device would partly ignore (``LiveActivityWarnings/labels``).
    func liveActivityWarning(kind: String) {
        Self.cached(&liveActivityWarnings, kind) {
            Counter(label: "salvo_live_activity_warnings_total", dimensions: [("kind", kind)])
        }.increment()
    }

    func produceFailure(topic: String) {
        Self.cached(&produceFailures, topic) {
            Counter(label: "salvo_kafka_produce_failures_total", dimensions: [("topic", topic)])
        }.increment()
    }

    /// `salvo_apns_pool_healthy{pool="app/environment"}`: 1 healthy, 0 unhealthy or probing.
    func poolHealthy(_ key: WorkerPoolKey, _ healthy: Bool) {
        Self.cached(&poolHealth, key) {
            Gauge(label: "salvo_apns_pool_healthy", dimensions: [("pool", "\(key.app)/\(key.environment.rawValue)")])
        }.record(healthy ? 1 : 0)
    }

    /// A record refused for good was replaced by a body-less dead letter.
    func deadLetterWithoutBody(refusedTopic: String) {
        Self.cached(&withoutBody, refusedTopic) {
            Counter(label: "salvo_dead_letters_without_body_total", dimensions: [("refused_topic", refusedTopic)])
        }.increment()
    }

    /// A body-less dead letter was refused too and given up (the last resort).
    func recordAbandoned(topic: String) {
        Self.cached(&abandoned, topic) {
            Counter(label: "salvo_records_abandoned_total", dimensions: [("topic", topic)])
        }.increment()
    }

    func rateLimited(byApp: Bool) {
        (byApp ? rateLimitedApp : rateLimitedDevice).increment()
    }

    func latency(lane: MetricsLane, nanoseconds: Int64) {
        latency[lane.index].recordNanoseconds(nanoseconds)
    }

    func queued(_ count: Int, lane: Lane) {
        queued[lane]?.record(count)
    }

    /// `salvo_consumer_lag` of exactly the partitions in `assigned`: records the sampled lags
    /// and removes the series of any other partition, so a sample taken just before a rebalance
    /// cannot bring back a partition this worker no longer reads.
    func consumerLag(_ sampled: [KafkaPartitionLag], assigned: Set<KafkaTopicPartition>) {
        removeConsumerLag(lag.keys.filter { !assigned.contains($0) })
        for sample in sampled where assigned.contains(sample.topicPartition) {
            guard let value = sample.lag else { continue }
            let partition = sample.topicPartition
            Self.cached(&lag, partition) {
                Gauge(
                    label: "salvo_consumer_lag",
                    dimensions: [("topic", partition.topic), ("partition", String(partition.partition))])
            }.record(value)
        }
    }

    /// Stops exporting the lag of partitions this worker gave up: their new owner exports it, and
    /// a stale copy here would add phantom lag to every sum (and fire `SalvoConsumerLagGrowing`).
    func removeConsumerLag(_ partitions: some Sequence<KafkaTopicPartition>) {
        for partition in partitions {
            lag.removeValue(forKey: partition)?.destroy()
        }
    }

    private static func cached<Key: Hashable, Instrument>(
        _ instruments: inout [Key: Instrument], _ key: Key, make: () -> Instrument
    ) -> Instrument {
        if let existing = instruments[key] { return existing }
        let created = make()
        instruments[key] = created
        return created
    }
}
