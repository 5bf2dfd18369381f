extension LoadTestScenario {
    /// The topics the worker reads and writes.
    public struct Topics: Sendable, Hashable {
        /// Per-user jobs. Default: "salvo.jobs.priority".
        public var priority: String = "salvo.jobs.priority"
        /// Campaign jobs. Default: "salvo.jobs".
        public var campaign: String = "salvo.jobs"
        /// Feedback events. Default: "salvo.feedback".
        public var feedback: String = "salvo.feedback"
        /// Dead letters. Default: "salvo.dlq".
        public var deadLetters: String = "salvo.dlq"
        /// Campaign control commands, written by ``LoadTestScenario/control`` actions (the
        /// worker's `topics.control`). Default: "salvo.control".
        public var control: String = "salvo.control"
        /// The workers' campaign progress, read for `sent + cancelled = total` (the worker's
        /// `topics.campaigns`). Default: "salvo.campaigns".
        public var campaigns: String = "salvo.campaigns"

        public init() {}
    }
}
