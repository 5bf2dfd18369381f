import SalvoAPNs
import Synchronization

/// The server's running totals, shared by every connection on every event loop. Relaxed atomics:
/// each is an independent count, and a snapshot need not be one instant.
final class MockAPNsCounters: Sendable {
    let connectionsOpened = Atomic<Int>(0)
    let connectionsClosed = Atomic<Int>(0)
    let streams = Atomic<Int>(0)
    let accepted = Atomic<Int>(0)
    let streamResets = Atomic<Int>(0)
    let connectionResets = Atomic<Int>(0)
    let goAwaysSent = Atomic<Int>(0)
    let streamLimitDrops = Atomic<Int>(0)
    /// Requests never answered: the client reset the stream, or the connection closed first.
    let unanswered = Atomic<Int>(0)
    /// One counter per `APNsReason.documented` entry, plus one for reasons outside that list.
    private let rejected: [Counter]
    private static let reasonIndex: [APNsReason: Int] = Dictionary(
        uniqueKeysWithValues: APNsReason.documented.enumerated().map { ($1, $0) })

    /// An atomic in a class, so counters can live in an array (`Atomic` cannot be copied).
    final class Counter: Sendable {
        let value = Atomic<Int>(0)
    }

    init() {
        self.rejected = (0...APNsReason.documented.count).map { _ in Counter() }
    }

    func rejected(_ reason: APNsReason) {
        let index = Self.reasonIndex[reason] ?? APNsReason.documented.count
        self.rejected[index].value.wrappingAdd(1, ordering: .relaxed)
    }

    func snapshot(scenario: String) -> MockAPNsStats {
        var byReason: [String: Int] = [:]
        for (index, counter) in self.rejected.enumerated() {
            let count = counter.value.load(ordering: .relaxed)
            guard count > 0 else { continue }
            byReason[index < APNsReason.documented.count ? APNsReason.documented[index].string : "Other"] = count
        }
        let opened = self.connectionsOpened.load(ordering: .relaxed)
        let streams = self.streams.load(ordering: .relaxed)
        let accepted = self.accepted.load(ordering: .relaxed)
        let rejectedTotal = byReason.values.reduce(0, +)
        let streamResets = self.streamResets.load(ordering: .relaxed)
        let unanswered = self.unanswered.load(ordering: .relaxed)
        return MockAPNsStats(
            scenario: scenario,
            accepted: accepted,
            rejected: byReason,
            rejectedTotal: rejectedTotal,
            connectionsOpen: opened - self.connectionsClosed.load(ordering: .relaxed),
            connectionsTotal: opened,
            streamsTotal: streams,
            streamsOpen: max(0, streams - accepted - rejectedTotal - streamResets - unanswered),
            streamResets: streamResets,
            unanswered: unanswered,
            connectionResets: self.connectionResets.load(ordering: .relaxed),
            goAwaysSent: self.goAwaysSent.load(ordering: .relaxed),
            streamLimitDrops: self.streamLimitDrops.load(ordering: .relaxed))
    }
}
