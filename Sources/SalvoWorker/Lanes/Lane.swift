/// The two ways work enters the worker. Per-user pushes are latency sensitive and small;
/// campaigns are large and tolerant of delay, so they must never make a per-user push wait long.
package enum Lane: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Per-user pushes (`salvo.jobs.priority`).
    case priority
    /// Campaigns (`salvo.jobs`).
    case campaign

    package var description: String { rawValue }
}
