extension LoadTestScenario {
    /// A stretch of time with one per-user rate (optionally ramped) and optional campaign bursts.
    public struct Phase: Sendable, Hashable {
        /// Shown in the report. Default: "phase N".
        public var name: String?
        /// Length in seconds, > 0.
        public var durationSeconds: Double
        /// Per-user jobs per second at the end of the phase. Each carries one token, so this is
        /// also the per-user lane's notifications per second. Default: 0.
        public var rate: Double
        /// The per-user rate at the start of the phase; the rate changes linearly to ``rate``.
        /// Default: nil (constant rate).
        public var rampFrom: Double?
        /// Campaigns bursting side by side during the phase (`campaign:` in the file for one,
        /// `campaigns:` for several, so a cancelled campaign can run beside one that is not).
        /// Default: none.
        public var campaigns: [Campaign]

        /// The first campaign; setting it replaces them all.
        public var campaign: Campaign? {
            get { campaigns.first }
            set { campaigns = newValue.map { [$0] } ?? [] }
        }

        public init(
            name: String? = nil, durationSeconds: Double, rate: Double = 0, rampFrom: Double? = nil,
            campaign: Campaign? = nil,
            campaigns: [Campaign] = []
        ) {
            self.name = name
            self.durationSeconds = durationSeconds
            self.rate = rate
            self.rampFrom = rampFrom
            self.campaigns = (campaign.map { [$0] } ?? []) + campaigns
        }
    }
}
