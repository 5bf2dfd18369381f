/// Where a caller wants its outcomes: a batch handler called per request, or the continuation
/// of a single `send`.
enum APNsOutcomeSink: Sendable {
    case handler(@Sendable (Int, APNsOutcome) -> Void)
    case single(CheckedContinuation<APNsOutcome, Never>)
}
