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
    /// Broadcasts answered 200 (their refusals count in `rejected`, like pushes').
    let broadcastsAccepted = Atomic<Int>(0)
    /// Answers of the channel-management listener, and its refusals by reason (apart from the
    /// APNs listener's, whose streams they are not).
    let channelRequests = Atomic<Int>(0)
    private let channelRejected: [Counter]
    /// The channels, counted per app in snapshots.
    let channels: MockChannelStore
    /// One counter per `APNsReason.allDocumented` entry, plus one for reasons outside that list.
    private let rejected: [Counter]
    private static let reasonIndex: [APNsReason: Int] = Dictionary(
        uniqueKeysWithValues: APNsReason.allDocumented.enumerated().map { ($1, $0) })

    /// An atomic in a class, so counters can live in an array (`Atomic` cannot be copied).
    final class Counter: Sendable {
        let value = Atomic<Int>(0)
    }

    init(channels: MockChannelStore = MockChannelStore()) {
        self.rejected = (0...APNsReason.allDocumented.count).map { _ in Counter() }
        self.channelRejected = (0...APNsReason.allDocumented.count).map { _ in Counter() }
        self.channels = channels
    }

    /// One answer of the channel-management listener; `rejected` is its reason when refused.
    func channelRequest(rejected reason: APNsReason?) {
        self.channelRequests.wrappingAdd(1, ordering: .relaxed)
        guard let reason else { return }
        let index = Self.reasonIndex[reason] ?? APNsReason.allDocumented.count
        self.channelRejected[index].value.wrappingAdd(1, ordering: .relaxed)
    }

    private static func byReason(_ counters: [Counter]) -> [String: Int] {
        var byReason: [String: Int] = [:]
        for (index, counter) in counters.enumerated() {
            let count = counter.value.load(ordering: .relaxed)
            guard count > 0 else { continue }
            byReason[index < APNsReason.allDocumented.count ? APNsReason.allDocumented[index].string : "Other"] = count
        }
        return byReason
    }

    func rejected(_ reason: APNsReason) {
        let index = Self.reasonIndex[reason] ?? APNsReason.allDocumented.count
        self.rejected[index].value.wrappingAdd(1, ordering: .relaxed)
    }

    func snapshot(scenario: String) -> MockAPNsStats {
        let byReason = Self.byReason(self.rejected)
        let opened = self.connectionsOpened.load(ordering: .relaxed)
        let streams = self.streams.load(ordering: .relaxed)
        let accepted = self.accepted.load(ordering: .relaxed)
        let broadcasts = self.broadcastsAccepted.load(ordering: .relaxed)
        let channelCounts = self.channels.counts()
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
            streamsOpen: max(0, streams - accepted - broadcasts - rejectedTotal - streamResets - unanswered),
            streamResets: streamResets,
            unanswered: unanswered,
            connectionResets: self.connectionResets.load(ordering: .relaxed),
            goAwaysSent: self.goAwaysSent.load(ordering: .relaxed),
            streamLimitDrops: self.streamLimitDrops.load(ordering: .relaxed),
            broadcastsAccepted: broadcasts,
            channels: channelCounts.values.reduce(0, +),
            channelsByApp: channelCounts,
            channelRequests: self.channelRequests.load(ordering: .relaxed),
            channelRequestsRejected: Self.byReason(self.channelRejected))
    }
}
