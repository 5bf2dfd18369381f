extension MockAPNsServer {
    /// How much of Apple's behaviour a request gets.
    public enum Validation: Sendable, Hashable {
        /// Apple's request rules, authentication, the scenario, listeners and recording.
        case apple
        /// The load fast path: every request is answered 200 at once with an `apns-id` (echoed
        /// or generated), nothing is parsed or recorded, and only connection-level faults
        /// (GOAWAY and resets every N streams or seconds) apply.
        case none
    }
}
