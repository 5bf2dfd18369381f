import Testing

@testable import SalvoPrimitives

@Suite struct SlotTableTests {
    @Test func reusesFreedSlotsAndKeepsCount() {
        var slab = SlotTable<String>()
        let a = slab.insert("a")
        let b = slab.insert("b")
        #expect(slab.count == 2)
        #expect(slab.remove(a) == "a")
        #expect(slab.remove(a) == nil)
        let c = slab.insert("c")
        #expect(c == a)
        #expect(slab[b] == "b")
        #expect(slab.count == 2)
        #expect(slab.occupiedSlots == [a, b].sorted())
    }

    @Test func updatesInPlaceAndFindsBySearch() {
        var slab = SlotTable<[Int]>()
        let slot = slab.insert([1])
        slab.update(slot) { $0.append(2) }
        #expect(slab[slot] == [1, 2])
        #expect(slab.update(slot + 5) { $0.append(3) } == nil)
        #expect(slab.firstSlot { $0.contains(2) } == slot)
        #expect(slab.firstSlot { $0.contains(9) } == nil)
        slab.removeAll()
        #expect(slab.isEmpty)
        #expect(slab[slot] == nil)
    }
}
