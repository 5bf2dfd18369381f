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

        public init() {}
    }
}
