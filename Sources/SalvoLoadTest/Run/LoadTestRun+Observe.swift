import SalvoKafka

extension LoadTestRun {
    /// Where a run looks for the worker's effects. Every source is optional; a run without any
    /// still produces its load and reports the schedule lag.
    public struct Observe: Sendable {
        /// Reads the feedback and dead-letter topics with this client. Default: nil (not read).
        public var kafka: KafkaClientConfiguration?
        /// Tails the mock's `--record` file. Default: nil (deliveries come from
        /// ``LoadTestRun/observeRecord(apnsID:receivedAtMilliseconds:)`` or ``LoadTestRun/mockListener``).
        public var mockRecordFile: String?
        /// The mock's admin base URL (`http://127.0.0.1:9101`): `/stats` is read at the end, and
        /// without ``mockRecordFile`` deliveries are paged from its `/deliveries` (see
        /// ``mockDeliveriesOverAdmin``). Default: nil.
        public var mockAdminURL: String?
        /// Whether deliveries come from the admin listener's `/deliveries` when no record file is
        /// given. False for a mock wired in process (``LoadTestRun/mockListener``), which would
        /// otherwise count every delivery twice. Default: true.
        public var mockDeliveriesOverAdmin: Bool = true
        /// The worker's metrics URL: `salvo_consumer_lag` is sampled every second. Default: nil.
        public var workerMetricsURL: String?
        /// Live progress on stderr. Default: true.
        public var progress: Bool = true

        public init(
            kafka: KafkaClientConfiguration? = nil, mockRecordFile: String? = nil, mockAdminURL: String? = nil,
            workerMetricsURL: String? = nil, progress: Bool = true
        ) {
            self.kafka = kafka
            self.mockRecordFile = mockRecordFile
            self.mockAdminURL = mockAdminURL
            self.workerMetricsURL = workerMetricsURL
            self.progress = progress
        }
    }
}
