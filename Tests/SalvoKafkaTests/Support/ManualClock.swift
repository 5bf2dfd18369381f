/// A clock whose time only moves when a test says so. State machines take `now` as an input,
/// so tests pass `clock.now` after `advance(by:)`.
struct ManualClock: Clock {
    struct Instant: InstantProtocol {
        var offset: Duration

        func advanced(by duration: Duration) -> Instant {
            Instant(offset: offset + duration)
        }

        func duration(to other: Instant) -> Duration {
            other.offset - offset
        }

        static func < (lhs: Instant, rhs: Instant) -> Bool {
            lhs.offset < rhs.offset
        }
    }

    var now = Instant(offset: .zero)
    var minimumResolution: Duration { .nanoseconds(1) }

    mutating func advance(by duration: Duration) {
        now = now.advanced(by: duration)
    }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try await Task.sleep(for: now.duration(to: deadline))
    }
}
