/// Values in flight addressed by small integer slots that are reused: insertion and removal in
/// O(1) without hashing or allocation once warm. The slot is the tag a request carries through
/// the layers below it (pool → connection → HTTP/2 session) instead of a closure or a promise.
struct APNsSlotTable<Element> {
    private var slots: [Element?] = []
    private var free: [Int] = []
    /// Values held.
    private(set) var count = 0

    var isEmpty: Bool { self.count == 0 }

    /// Stores `element` and returns its slot.
    mutating func insert(_ element: Element) -> Int {
        self.count += 1
        if let slot = self.free.popLast() {
            self.slots[slot] = element
            return slot
        }
        self.slots.append(element)
        return self.slots.count - 1
    }

    /// Takes the value out of `slot` (nil if the slot is empty or unknown).
    mutating func remove(_ slot: Int) -> Element? {
        // `take()` moves the element out: no retain and release of its references.
        guard self.slots.indices.contains(slot), let element = self.slots[slot].take() else { return nil }
        self.free.append(slot)
        self.count -= 1
        return element
    }

    /// Takes every value out, in slot order.
    mutating func removeAll() -> [Element] {
        let elements = self.slots.compactMap { $0 }
        self.slots.removeAll()
        self.free.removeAll()
        self.count = 0
        return elements
    }
}
