import Metrics

/// The pool's swift-metrics instruments, created once per pool (creating one costs a factory
/// lookup and an allocation, so nothing here is created per request; the rare rejections are
/// cached by status and reason). Every name starts with `salvo_apns_` and carries a `pool`
/// dimension: ``APNsConnectionPool/Configuration/name``.
final class APNsPoolMetrics: Sendable {
    let pool: String
    let inFlight: Gauge
    let queued: Gauge
    let streamCredit: Gauge
    let connectionsConnecting: Gauge
    let connectionsReady: Gauge
    let connectionsDraining: Gauge
    let connectionsBackingOff: Gauge
    let reconnects: Counter
    let connectFailures: Counter
    let goAways: Counter
    let replays: Counter
    let pingRoundTrip: Timer
    /// `salvo_apns_requests_total{status="200",reason=""}`, by far the most frequent answer.
    private let accepted: Counter
    /// The other answers, by status and reason (``APNsPoolAnswerLabels``), created on first use.
    private let rejections: APNsPoolRejectionCounters
    /// `salvo_apns_request_duration_seconds` by ``APNsStatusClass``, in `allCases` order.
    private let durations: [Timer]
    /// `salvo_apns_failures_total{code}` for requests that ended without an answer.
    private let notSent: Counter
    private let timedOut: Counter
    private let connectionLost: Counter
    private let otherFailures: Counter

    init(pool: String) {
        let dimensions = [("pool", pool)]
        func connections(_ state: String) -> Gauge {
            Gauge(label: "salvo_apns_connections", dimensions: dimensions + [("state", state)])
        }
        func failures(_ code: String) -> Counter {
            Counter(label: "salvo_apns_failures_total", dimensions: dimensions + [("code", code)])
        }
        self.pool = pool
        self.inFlight = Gauge(label: "salvo_apns_in_flight", dimensions: dimensions)
        self.queued = Gauge(label: "salvo_apns_queued", dimensions: dimensions)
        self.streamCredit = Gauge(label: "salvo_apns_stream_credit", dimensions: dimensions)
        self.connectionsConnecting = connections("connecting")
        self.connectionsReady = connections("ready")
        self.connectionsDraining = connections("draining")
        self.connectionsBackingOff = connections("backing_off")
        self.reconnects = Counter(label: "salvo_apns_reconnects_total", dimensions: dimensions)
        self.connectFailures = Counter(label: "salvo_apns_connect_failures_total", dimensions: dimensions)
        self.goAways = Counter(label: "salvo_apns_goaways_total", dimensions: dimensions)
        self.replays = Counter(label: "salvo_apns_replays_total", dimensions: dimensions)
        self.pingRoundTrip = Timer(
            label: "salvo_apns_ping_rtt_seconds", dimensions: dimensions, preferredDisplayUnit: .seconds)
        self.accepted = Counter(
            label: "salvo_apns_requests_total", dimensions: dimensions + [("status", "200"), ("reason", "")])
        self.rejections = APNsPoolRejectionCounters(pool: pool)
        self.durations = APNsStatusClass.allCases.map {
            Timer(
                label: "salvo_apns_request_duration_seconds", dimensions: dimensions + [("status_class", $0.rawValue)],
                preferredDisplayUnit: .seconds)
        }
        self.notSent = failures("not_sent")
        self.timedOut = failures("timed_out")
        self.connectionLost = failures("connection_lost")
        self.otherFailures = failures("other")
    }

    /// Counts an answer from APNs by status and reason; 200 without a lookup.
    func responseReceived(_ response: APNsResponse) {
        if response.status == 200 {
            self.accepted.increment()
        } else {
            self.rejections.increment(status: response.status, reason: response.reason)
        }
    }

    /// Counts a request that ended without an answer.
    func requestFailed(_ code: APNsError.Code) {
        switch code {
        case .notSent: self.notSent.increment()
        case .timedOut: self.timedOut.increment()
        case .connectionLost: self.connectionLost.increment()
        default: self.otherFailures.increment()
        }
    }

    /// Records how long a request took from leaving the pool to its answer (or its failure).
    func requestFinished(_ statusClass: APNsStatusClass, nanoseconds: Int64) {
        self.durations[statusClass.index].recordNanoseconds(nanoseconds)
    }
}
