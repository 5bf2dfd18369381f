/// Values addressed by small integer slots that are reused: insertion and removal in O(1)
/// without hashing or allocation once warm, and the table never grows beyond the most values
/// held at once.
///
/// The slot is the handle a request carries through the layers (docs/architecture.md, "the life
/// of a notification"): nghttp2 keeps a `stream_user_data` pointer per stream and hands it back in
/// every callback, so storing the session's slot there makes each callback an array access; the
/// APNs connection and pool tag their requests with their own tables' slots instead of a closure
/// or a promise. One type for the three, in SalvoPrimitives, below every module that uses it.
/// Public and `@inlinable` so that its users' tables are specialised: Swift 6.3 specialises an
/// `@inlinable` generic across modules only when it is public (as `package`, the callers in
/// SalvoAPNs kept calling the generic insert and remove, with metadata lookups for
/// `Optional<Element>` and `[Element?]` on every call: 4,800 instructions per notification in
/// `make bench-instructions`). The module is no product, so nothing outside the package sees it.
public struct SlotTable<Element> {
    @usableFromInline var slots: [Element?] = []
    @usableFromInline var freeSlots: [Int] = []
    @usableFromInline var occupied = 0
    /// Occupied slots.
    @inlinable public var count: Int { self.occupied }

    @inlinable public init() {}

    @inlinable public var isEmpty: Bool { self.occupied == 0 }

    /// Stores `element` and returns its slot. Takes the element over (moved in, not copied: a
    /// copy would retain each of its references).
    @inlinable
    public mutating func insert(_ element: consuming Element) -> Int {
        self.occupied += 1
        if let slot = self.freeSlots.popLast() {
            self.slots[slot] = element
            return slot
        }
        self.slots.append(element)
        return self.slots.count - 1
    }

    /// The value in `slot`; nil for an empty or unknown slot.
    @inlinable
    public subscript(slot: Int) -> Element? {
        guard slot >= 0, slot < self.slots.count else { return nil }
        return self.slots[slot]
    }

    /// Mutates the element in place (no copy of its buffers); nil for an empty slot.
    @inlinable @discardableResult
    public mutating func update<Result>(_ slot: Int, _ body: (inout Element) -> Result) -> Result? {
        guard slot >= 0, slot < self.slots.count, self.slots[slot] != nil else { return nil }
        return body(&self.slots[slot]!)
    }

    /// Takes the value out of `slot` (nil if the slot is empty or unknown). `take()` moves the
    /// element out: no retain and release of its references.
    @inlinable @discardableResult
    public mutating func remove(_ slot: Int) -> Element? {
        guard slot >= 0, slot < self.slots.count, let element = self.slots[slot].take() else { return nil }
        self.freeSlots.append(slot)
        self.occupied -= 1
        return element
    }

    /// Occupied slots, for the rare walks (deadlines, connection loss, dropped requests).
    @inlinable
    public var occupiedSlots: [Int] {
        self.slots.indices.filter { self.slots[$0] != nil }
    }

    /// The first occupied slot whose element matches (a linear walk, for rare paths).
    @inlinable
    public func firstSlot(where predicate: (Element) -> Bool) -> Int? {
        self.slots.firstIndex { $0.map(predicate) ?? false }
    }

    /// Takes every value out, in slot order.
    @inlinable @discardableResult
    public mutating func removeAll() -> [Element] {
        let elements = self.slots.compactMap { $0 }
        self.slots.removeAll()
        self.freeSlots.removeAll()
        self.occupied = 0
        return elements
    }
}

extension SlotTable: Sendable where Element: Sendable {}
