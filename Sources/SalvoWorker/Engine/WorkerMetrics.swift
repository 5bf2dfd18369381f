import Metrics

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
    private let latency: [Metrics.Timer] = MetricsLane.allCases.map {
        Metrics.Timer(label: "salvo_end_to_end_latency_seconds", dimensions: [("lane", $0.rawValue)], preferredDisplayUnit: .seconds)
    }
    private var lag: [String: Gauge] = [:]
    private let rateLimitedApp = Counter(label: "salvo_rate_limited_total", dimensions: [("limit", "app")])
    private let rateLimitedDevice = Counter(label: "salvo_rate_limited_total", dimensions: [("limit", "device")])
    let inFlight = Gauge(label: "salvo_notifications_in_flight")
    let retryDepth = Gauge(label: "salvo_retry_queue_depth")
    private let queued: [Lane: Gauge] = Dictionary(
        uniqueKeysWithValues: Lane.allCases.map { ($0, Gauge(label: "salvo_notifications_queued", dimensions: [("lane", $0.rawValue)])) })

    /// Creates, at zero, the series alerts watch for rare events (dead letters of sent
    /// notifications, refused produces), so `/metrics` shows them before the first one happens and
    /// a rate over them is 0 rather than empty.
    init(topics: WorkerTopics) {
        for code in [DeadLetterReason.retriesExhaustedCode, DeadLetterReason.apnsRejectedCode, DeadLetterReason.invalidRequestCode] {
            _ = Self.cached(&deadLetters, code) { Counter(label: "salvo_dead_letters_total", dimensions: [("reason", code)]) }
        }
        for topic in [topics.feedback, topics.deadLetter, topics.retry] {
            _ = Self.cached(&produceFailures, topic) { Counter(label: "salvo_kafka_produce_failures_total", dimensions: [("topic", topic)]) }
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
            Counter(label: "salvo_notifications_total", dimensions: [("app", app), ("outcome", "delivered"), ("reason", "")])
        }.increment(by: deliveredUnflushed)
        deliveredUnflushed = 0
    }

    /// `outcome`: `invalid_token`, `dead_lettered`, `retry_scheduled`, `retry_handed_off`, `replayed`.
    func notification(app: String, outcome: String, reason: String, count: Int = 1) {
        let key = NotificationKey(app: app, outcome: outcome, reason: reason)
        Self.cached(&notifications, key) {
            Counter(label: "salvo_notifications_total", dimensions: [("app", app), ("outcome", outcome), ("reason", reason)])
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
        let counter = Counter(label: "salvo_jobs_total", dimensions: [("lane", lane.rawValue), ("result", result.rawValue)])
        jobs[index] = counter
        counter.increment()
    }

    func deadLetter(reason: String) {
        Self.cached(&deadLetters, reason) { Counter(label: "salvo_dead_letters_total", dimensions: [("reason", reason)]) }.increment()
    }

    func feedbackEvent(app: String, reason: String) {
        Self.cached(&feedback, NotificationKey(app: app, outcome: "", reason: reason)) {
            Counter(label: "salvo_feedback_events_total", dimensions: [("app", app), ("reason", reason)])
        }.increment()
    }

    func produceFailure(topic: String) {
        Self.cached(&produceFailures, topic) {
            Counter(label: "salvo_kafka_produce_failures_total", dimensions: [("topic", topic)])
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

    func consumerLag(topic: String, partition: Int32, lag: Int64) {
        Self.cached(&self.lag, "\(topic)|\(partition)") {
            Gauge(label: "salvo_consumer_lag", dimensions: [("topic", topic), ("partition", String(partition))])
        }.record(lag)
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
