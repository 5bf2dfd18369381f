import Foundation
import SalvoAPNs
import SalvoMockAPNs
import Synchronization

/// What `salvo bench latency` learns: per per-user push, its produce time, the mock's receipt of
/// the request and the mock's answer; per record of the per-user topic, what an independent
/// consumer saw. A mock listener, so it is called for every campaign push too: those are told apart
/// by their token's first hex digit (campaign tokens are zero-padded counters, per-user ones
/// start with `f`) before anything else is done.
final class BenchLatencyProbe: MockAPNsListener {
    private struct State {
        var producedAt: [String: Int64] = [:]
        /// Produce → the mock's 200 (the figure), and produce → the request complete at the mock.
        var answered: [Int64] = []
        var arrived: [Int64] = []
        /// Produce → fetched by the independent consumer.
        var floor: [Int64] = []
    }

    private let state = Mutex(State())
    private let answeredCount = Atomic<Int>(0)
    private let floorReading = Atomic<Bool>(false)

    /// Whether the floor consumer has read a record (so its group join is over).
    var floorReads: Bool { floorReading.load(ordering: .relaxed) }

    func floorIsReading() {
        floorReading.store(true, ordering: .relaxed)
    }

    var answered: Int { answeredCount.load(ordering: .relaxed) }

    static func token(_ index: Int) -> String {
        let hex = String(index, radix: 16)
        return "f" + String(repeating: "0", count: 63 - hex.count) + hex
    }

    static func nowMilliseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1_000 + Int64(time.tv_nsec) / 1_000_000
    }

    func produced(token: String, atMilliseconds milliseconds: Int64) {
        state.withLock { $0.producedAt[token] = milliseconds }
    }

    func floorSample(_ milliseconds: Int64) {
        state.withLock { $0.floor.append(milliseconds) }
    }

    func pushAccepted(_ push: MockAcceptedPush) {
        guard push.request.token.withHexBytes({ $0.first == UInt8(ascii: "f") }) else { return }
        let now = Self.nowMilliseconds()
        let token = push.request.token.hex
        state.withLock { state in
            guard let produced = state.producedAt.removeValue(forKey: token) else { return }
            state.answered.append(now - produced)
            state.arrived.append(push.receivedAtMilliseconds - produced)
        }
        answeredCount.add(1, ordering: .relaxed)
    }

    /// One line: per-user p50/p99/max against the floor's, and the parts.
    func summary(campaignLeft: Int) -> String {
        state.withLock { state in
            func percentile(_ values: [Int64], _ fraction: Double) -> Int64 {
                let sorted = values.sorted()
                guard !sorted.isEmpty else { return -1 }
                return sorted[min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.up)) - 1)]
            }
            let worker = (percentile(state.answered, 0.5), percentile(state.answered, 0.99), state.answered.max() ?? -1)
            let floor = (percentile(state.floor, 0.5), percentile(state.floor, 0.99), state.floor.max() ?? -1)
            let arrived = (percentile(state.arrived, 0.5), percentile(state.arrived, 0.99))
            return
                "per-user produce → APNs 200: p50 \(worker.0) ms, p99 \(worker.1) ms, max \(worker.2) ms (\(state.answered.count) pushes); "
                + "broker floor (independent consumer, produce → fetched): p50 \(floor.0) ms, p99 \(floor.1) ms, max \(floor.2) ms (\(state.floor.count) records); "
                + "p99 over the floor \(worker.1 - floor.1) ms; produce → request at the mock p50 \(arrived.0) / p99 \(arrived.1) ms; "
                + "campaign notifications still queued at the end: \(campaignLeft)"
        }
    }
}
