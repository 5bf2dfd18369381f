extension LoadTestScenario {
    /// One campaign job of ``tokensPerJob`` tokens every ``everySeconds``, the first at the phase start.
    public struct Campaign: Sendable, Hashable {
        /// ≥ 1, and the job must fit ``LoadTestScenario/maximumJobBytes``.
        public var tokensPerJob: Int
        /// > 0.
        public var everySeconds: Double
        /// Names the campaign so a ``Control`` action can address it; its jobs then carry the
        /// campaign id `<run id>-<name>`, unique per run, because a cancel stays on the compacted
        /// control topic and would stop a later run that reused the id. The same name in two phases
        /// is one campaign. Default: nil (campaign id `<run id>`, shared by every unnamed campaign).
        public var name: String?

        public init(tokensPerJob: Int, everySeconds: Double, name: String? = nil) {
            self.tokensPerJob = tokensPerJob
            self.everySeconds = everySeconds
            self.name = name
        }

        /// The `campaign_id` of this campaign's jobs in run `runID`.
        public func campaignID(runID: String) -> String {
            Self.campaignID(name: name, runID: runID)
        }

        static func campaignID(name: String?, runID: String) -> String {
            name.map { "\(runID)-\($0)" } ?? runID
        }
    }
}
