/// Where a caller wants its outcomes: a batch handler called per request, or the continuation
/// of a single `send`.
enum APNsOutcomeSink: Sendable {
    case handler(@Sendable (Int, APNsOutcome) -> Void)
    case single(CheckedContinuation<APNsOutcome, Never>)

    func deliver(_ outcome: APNsOutcome, index: Int) {
        switch self {
        case .handler(let handler): handler(index, outcome)
        case .single(let continuation): continuation.resume(returning: outcome)
        }
    }
}
