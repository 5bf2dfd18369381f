import Logging
import NIOCore
import SalvoAPNs
import Synchronization

/// What every connection of one server shares: configuration, counters, the scenario in force,
/// listeners, the token verifier and the cross-connection fault state (per-token rate limits,
/// Shutdown storms). Everything here is safe to use from any event loop.
final class MockAPNsRuntime: Sendable {
    let configuration: MockAPNsServer.Configuration
    let counters: MockAPNsCounters
    /// The broadcast and channel-management rules, over the server's channels.
    let broadcastJudge: MockBroadcastJudge
    let scenarios: MockScenarioBox
    let listeners: [any MockAPNsListener]
    let verifier: MockProviderTokenVerifier
    let registry = MockConnectionRegistry()
    let responses: MockResponses
    let logger: Logger
    private let rateLimiter = Mutex(MockTokenRateLimiter())
    private let startUptimeNanoseconds: Int64
    /// End of a Shutdown storm started by an operator (uptime nanoseconds; 0: none).
    private let manualStormEnd = Atomic<Int64>(0)
    private let connectionIDs = Atomic<Int>(0)

    init(configuration: MockAPNsServer.Configuration, listeners: [any MockAPNsListener], logger: Logger) {
        self.configuration = configuration
        let channels = MockChannelStore(limit: configuration.channelLimit)
        self.counters = MockAPNsCounters(channels: channels)
        self.broadcastJudge = MockBroadcastJudge(
            store: channels, environment: configuration.environment,
            featureDisabled: configuration.broadcastFeatureDisabled,
            disallowed: configuration.broadcastDisallowed)
        self.scenarios = MockScenarioBox(configuration.scenario)
        self.listeners = listeners
        self.verifier = MockProviderTokenVerifier(keys: configuration.tokenKeys)
        self.responses = MockResponses(environment: configuration.environment)
        self.logger = logger
        self.startUptimeNanoseconds = Self.uptimeNanoseconds()
    }

    static func uptimeNanoseconds() -> Int64 {
        Int64(truncatingIfNeeded: NIODeadline.now().uptimeNanoseconds)
    }

    func nextConnectionID() -> Int {
        self.connectionIDs.wrappingAdd(1, ordering: .relaxed).newValue
    }

    /// Whether a token may receive one more notification now (the `rate_limit` fault).
    func admit(_ token: DeviceToken, limit: MockScenario.RateLimit) -> Bool {
        let now = Self.uptimeNanoseconds()
        return self.rateLimiter.withLock { $0.admit(token, limit: limit, now: now) }
    }

    /// Whether a Shutdown storm rages now: the scenario's periodic one or an operator's.
    func isShutdownStormActive(_ storm: MockScenario.ShutdownStorm?) -> Bool {
        let manualEnd = self.manualStormEnd.load(ordering: .relaxed)
        guard storm != nil || manualEnd > 0 else { return false }
        let now = Self.uptimeNanoseconds()
        if now < manualEnd { return true }
        guard let storm else { return false }
        return storm.isActive(elapsedNanoseconds: now - self.startUptimeNanoseconds)
    }

    /// `seconds` was checked by the caller (``MockAPNsServer/startShutdownStorm(seconds:)``);
    /// the conversion saturates anyway.
    func startShutdownStorm(seconds: Double) {
        self.manualStormEnd.store(Self.uptimeNanoseconds() + Nanoseconds.from(seconds: seconds), ordering: .relaxed)
    }

    func endShutdownStorm() {
        self.manualStormEnd.store(0, ordering: .relaxed)
    }

    /// 403 `TopicMismatch` when the token's team is listed in `teamBundleIDs` without `bundleID`.
    func teamMismatch(teamID: String?, bundleID: String) -> APNsReason? {
        guard let teamID, let bundles = self.configuration.teamBundleIDs[teamID], !bundles.contains(bundleID) else {
            return nil
        }
        return .topicMismatch
    }

    func stats() -> MockAPNsStats {
        self.counters.snapshot(scenario: self.scenarios.load().scenario.name)
    }
}
