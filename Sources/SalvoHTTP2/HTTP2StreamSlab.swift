/// Per-stream state addressed by a small integer slot instead of a hashed stream ID.
///
/// nghttp2 keeps a `stream_user_data` pointer per stream and hands it back in every callback;
/// storing the slot there makes each callback an array access. Freed slots are reused, so the
/// slab never grows beyond the most streams open at once.
struct HTTP2StreamSlab<Element> {
    private var slots: [Element?] = []
    private var freeSlots: [Int] = []
    /// Occupied slots.
    private(set) var count = 0

    var isEmpty: Bool { self.count == 0 }

    /// Takes `element` over (moved in, not copied: a copy would retain each of its references).
    mutating func insert(_ element: consuming Element) -> Int {
        self.count += 1
        if let slot = self.freeSlots.popLast() {
            self.slots[slot] = element
            return slot
        }
        self.slots.append(element)
        return self.slots.count - 1
    }

    subscript(slot: Int) -> Element? {
        guard slot >= 0, slot < self.slots.count else { return nil }
        return self.slots[slot]
    }

    /// Mutates the element in place (no copy of its buffers); `nil` for an empty slot.
    @discardableResult
    mutating func update<Result>(_ slot: Int, _ body: (inout Element) -> Result) -> Result? {
        guard slot >= 0, slot < self.slots.count, self.slots[slot] != nil else { return nil }
        return body(&self.slots[slot]!)
    }

    @discardableResult
    mutating func remove(_ slot: Int) -> Element? {
        // `take()` moves the element out: no retain and release of its references.
        guard slot >= 0, slot < self.slots.count, let element = self.slots[slot].take() else { return nil }
        self.freeSlots.append(slot)
        self.count -= 1
        return element
    }

    /// Occupied slots, for the rare walks (deadlines, connection loss, dropped requests).
    var occupiedSlots: [Int] {
        self.slots.indices.filter { self.slots[$0] != nil }
    }

    /// The first occupied slot whose element matches (a linear walk, for rare paths).
    func firstSlot(where predicate: (Element) -> Bool) -> Int? {
        self.slots.firstIndex { $0.map(predicate) ?? false }
    }

    mutating func removeAll() {
        self.slots.removeAll()
        self.freeSlots.removeAll()
        self.count = 0
    }
}
