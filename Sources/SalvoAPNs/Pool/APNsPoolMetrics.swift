import Metrics

/// The pool's swift-metrics instruments, created once per pool (creating one costs a factory
/// lookup and an allocation, so nothing here is created per request). Every name starts with
/// `salvo_apns_` and carries a `pool` dimension naming the credential and environment.
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
    /// `salvo_apns_requests_total{status}` for the statuses APNs documents, and "other".
    private let responses: [Int: Counter]
    private let otherResponses: Counter
    private let accepted: Counter
    /// `salvo_apns_failures_total{code}` for requests that ended without an answer.
    private let notSent: Counter
    private let timedOut: Counter
    private let connectionLost: Counter
    private let otherFailures: Counter

    /// The statuses APNs answers with (Apple's documentation lists these and no others).
    static let documentedStatuses = [200, 400, 403, 404, 405, 410, 413, 429, 500, 503]

    init(pool: String) {
        let dimensions = [("pool", pool)]
        func connections(_ state: String) -> Gauge {
            Gauge(label: "salvo_apns_connections", dimensions: dimensions + [("state", state)])
        }
        func requests(_ status: String) -> Counter {
            Counter(label: "salvo_apns_requests_total", dimensions: dimensions + [("status", status)])
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
        self.pingRoundTrip = Timer(label: "salvo_apns_ping_rtt_seconds", dimensions: dimensions, preferredDisplayUnit: .seconds)
        self.responses = Dictionary(uniqueKeysWithValues: Self.documentedStatuses.map { ($0, requests(String($0))) })
        self.otherResponses = requests("other")
        self.accepted = self.responses[200]!
        self.notSent = failures(APNsError.Code.notSent.description)
        self.timedOut = failures(APNsError.Code.timedOut.description)
        self.connectionLost = failures(APNsError.Code.connectionLost.description)
        self.otherFailures = failures("other")
    }

    /// Counts an answer from APNs by status; 200, by far the most frequent, without a lookup.
    func responseReceived(status: Int) {
        if status == 200 {
            self.accepted.increment()
        } else {
            (self.responses[status] ?? self.otherResponses).increment()
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
}
