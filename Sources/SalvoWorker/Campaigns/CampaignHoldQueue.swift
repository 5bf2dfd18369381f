import DequeModule

/// The work of paused campaigns, held in memory within bounds (docs/campaigns.md, "pause").
///
/// A pure value for the worker core: it holds items per campaign in arrival order, says which
/// item does not fit (`capacity`) and which were held too long (`maximumHold`) so the core hands
/// them to the retry topic — held work must never pin a partition's commit — and gives a campaign's
/// items back on resume or cancel. Generic over the instant type, so tests drive time.
package struct CampaignHoldQueue<Item: Sendable, Instant: InstantProtocol & Sendable>: Sendable
where Instant.Duration == Duration {
    private struct Held: Sendable {
        var item: Item
        var since: Instant
    }

    /// Most items held over all campaigns.
    package let capacity: Int
    /// Longest an item is held before it is due for hand-off.
    package let maximumHold: Duration
    private var campaigns: [String: Deque<Held>] = [:]
    package private(set) var count = 0

    package init(capacity: Int, maximumHold: Duration) {
        self.capacity = max(0, capacity)
        self.maximumHold = maximumHold
    }

    package var isEmpty: Bool { count == 0 }

    /// Holds `item`; returns it when the queue is full (the caller hands it to the retry topic).
    package mutating func hold(_ item: Item, campaignID: String, now: Instant) -> Item? {
        guard count < capacity else { return item }
        campaigns[campaignID, default: []].append(Held(item: item, since: now))
        count += 1
        return nil
    }

    /// Holds as many of `items` as fit, with one lookup of the campaign (a pause sweeps a whole
    /// campaign at once); returns those that did not fit, in order.
    package mutating func hold(contentsOf items: some Collection<Item>, campaignID: String, now: Instant) -> [Item] {
        let fitting = min(items.count, capacity - count)
        guard fitting > 0 else { return Array(items) }
        campaigns[campaignID, default: []].append(
            contentsOf: items.prefix(fitting).lazy.map { Held(item: $0, since: now) })
        count += fitting
        return Array(items.dropFirst(fitting))
    }

    /// Takes every item of the campaign, in the order held (on resume: send them; on cancel:
    /// finish them as cancelled).
    package mutating func take(campaignID: String) -> [Item] {
        guard let held = campaigns.removeValue(forKey: campaignID) else { return [] }
        count -= held.count
        return held.map(\.item)
    }

    /// Takes the items held for `maximumHold` or longer, with their campaign.
    package mutating func takeExpired(now: Instant) -> [(campaignID: String, item: Item)] {
        var expired: [(campaignID: String, item: Item)] = []
        for campaignID in Array(campaigns.keys) {
            while let first = campaigns[campaignID]?.first, first.since.advanced(by: maximumHold) <= now {
                campaigns[campaignID]!.removeFirst()
                count -= 1
                expired.append((campaignID, first.item))
            }
            if campaigns[campaignID]?.isEmpty == true { campaigns[campaignID] = nil }
        }
        return expired
    }

    /// When the next item becomes due for hand-off (to arm a timer), nil when empty.
    package var nextExpiry: Instant? {
        campaigns.values.compactMap { $0.first?.since.advanced(by: maximumHold) }.min()
    }

    /// Takes the items `shouldRemove` selects, whatever their campaign (a revoked partition's).
    package mutating func removeAll(where shouldRemove: (Item) -> Bool) -> [Item] {
        var removed: [Item] = []
        for campaignID in Array(campaigns.keys) {
            var kept: Deque<Held> = []
            for held in campaigns[campaignID]! {
                if shouldRemove(held.item) { removed.append(held.item) } else { kept.append(held) }
            }
            campaigns[campaignID] = kept.isEmpty ? nil : kept
        }
        count -= removed.count
        return removed
    }
}
