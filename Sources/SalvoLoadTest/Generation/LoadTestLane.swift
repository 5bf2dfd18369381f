/// The worker's two lanes (docs/jobs.md): latencies are reported per lane because the priority
/// lane's promise (a per-user push is not stuck behind a campaign) is what a load test checks.
public enum LoadTestLane: String, Sendable, Hashable, Codable, CaseIterable {
    /// Per-user jobs, one token each.
    case priority
    /// Campaign jobs, many tokens each.
    case campaign
    /// Live Activity broadcast jobs (`channel_id`): one request each, produced to the
    /// per-user topic in place of some per-user jobs (``LoadTestScenario/Mix/broadcasts``).
    case broadcast
}
