/// Durations from a scenario or an operator (seconds or milliseconds as `Double`) converted to
/// nanoseconds without trapping. Validation bounds every duration first
/// (``MockScenario/maximumSeconds``); this saturates what skipped it — a scenario built in code
/// and never validated, a log-normal draw far out in its tail, a NaN — instead of letting
/// `Int64(_:)` trap on a value out of range.
enum Nanoseconds {
    /// Longer than any validated duration, far from `Int64.max` (sums with a clock stay safe).
    static let ceiling: Int64 = 1 << 60

    static func from(seconds: Double) -> Int64 {
        guard seconds > 0 else { return 0 }  // NaN and negatives too
        guard seconds < Double(Self.ceiling) / 1e9 else { return Self.ceiling }
        return Int64((seconds * 1e9).rounded())
    }

    static func from(milliseconds: Double) -> Int64 {
        Self.from(seconds: milliseconds / 1_000)
    }
}
