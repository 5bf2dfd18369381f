extension LoadTestScenario {
    /// One campaign job of ``tokensPerJob`` tokens every ``everySeconds``, the first at the phase start.
    public struct Campaign: Sendable, Hashable {
        /// ≥ 1, and the job must fit ``LoadTestScenario/maximumJobBytes``.
        public var tokensPerJob: Int
        /// > 0.
        public var everySeconds: Double

        public init(tokensPerJob: Int, everySeconds: Double) {
            self.tokensPerJob = tokensPerJob
            self.everySeconds = everySeconds
        }
    }
}
