extension LoadTestReport {
    public struct TimelinePoint: Sendable, Hashable, Codable {
        /// Start of the bucket, seconds after the run's start.
        public var second: Int
        public var producedPerSecond: Double
        public var deliveredPerSecond: Double
        /// Latency of the notifications delivered in the bucket, ms; nil when none were.
        public var p50: UInt64?
        public var p99: UInt64?

        public init(second: Int, producedPerSecond: Double, deliveredPerSecond: Double, p50: UInt64?, p99: UInt64?) {
            self.second = second
            self.producedPerSecond = producedPerSecond
            self.deliveredPerSecond = deliveredPerSecond
            self.p50 = p50
            self.p99 = p99
        }
    }

    public struct DistributionPoint: Sendable, Hashable, Codable {
        public var percentile: Double
        public var milliseconds: UInt64

        public init(percentile: Double, milliseconds: UInt64) {
            self.percentile = percentile
            self.milliseconds = milliseconds
        }
    }

    /// One consumer-lag sample of the worker's group (from its `/metrics`).
    public struct LagPoint: Sendable, Hashable, Codable {
        public var second: Int
        public var lag: Double

        public init(second: Int, lag: Double) {
            self.second = second
            self.lag = lag
        }
    }
}
