extension LoadTestScenario {
    /// The faults the generator injects, as exact fractions (realised by counting, not by chance).
    public struct Mix: Sendable, Hashable {
        /// Tokens (over both lanes) the mock will answer 410 `Unregistered`. Default: 0.
        public var unregistered: Double = 0
        /// Tokens the mock will answer 400 `BadDeviceToken`. Default: 0.
        public var badDeviceToken: Double = 0
        /// Good jobs produced a second time, unchanged (at-least-once producers). Default: 0.
        public var duplicateJobs: Double = 0
        /// Jobs replaced by a broken one the worker must dead-letter. Default: 0.
        public var badJobs: Double = 0
        /// Per-user jobs replaced by a Live Activity broadcast job to one of
        /// ``broadcastChannels`` (in turn), each one request the mock records with its channel.
        /// Default: 0 (off: the channels must exist on the mock, created beforehand with
        /// `salvo channels create`, and the worker must send broadcast jobs).
        public var broadcasts: Double = 0
        /// Channel ids (base64, as the channel-management API returned them). Default: none.
        public var broadcastChannels: [String] = []

        public init() {}
    }
}
