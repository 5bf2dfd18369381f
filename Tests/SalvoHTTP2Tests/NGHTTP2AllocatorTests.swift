import CNGHTTP2
import Testing

@testable import SalvoHTTP2

/// The pooling allocator through the same `nghttp2_mem` table nghttp2 calls.
@Suite struct NGHTTP2AllocatorTests {
    @Test func blocksKeepTheirContentAcrossReallocAndAreRecycled() throws {
        let allocator = NGHTTP2Allocator()
        let mem = allocator.makeMem()
        for size in [1, 47, 48, 49, 500, 4080, 4081, 100_000] {
            let block = try #require(mem.malloc(size, mem.mem_user_data))
            block.initializeMemory(as: UInt8.self, repeating: 0xAB, count: size)
            let grown = try #require(mem.realloc(block, size * 3, mem.mem_user_data))
            let bytes = grown.assumingMemoryBound(to: UInt8.self)
            #expect((0..<size).allSatisfy { bytes[$0] == 0xAB }, "size \(size)")
            mem.free(grown, mem.mem_user_data)
        }
        // A freed block of a class comes back for the next request of that class.
        let first = mem.malloc(100, mem.mem_user_data)
        mem.free(first, mem.mem_user_data)
        let second = mem.malloc(90, mem.mem_user_data)
        #expect(first == second)
        mem.free(second, mem.mem_user_data)
        mem.free(nil, mem.mem_user_data)
    }

    @Test func callocZeroesAndRefusesOverflow() throws {
        let allocator = NGHTTP2Allocator()
        let mem = allocator.makeMem()
        let dirty = try #require(mem.malloc(256, mem.mem_user_data))
        dirty.initializeMemory(as: UInt8.self, repeating: 0xFF, count: 256)
        mem.free(dirty, mem.mem_user_data)
        let clean = try #require(mem.calloc(16, 16, mem.mem_user_data))
        #expect(UnsafeRawBufferPointer(start: clean, count: 256).allSatisfy { $0 == 0 })
        mem.free(clean, mem.mem_user_data)
        #expect(mem.calloc(Int.max, 2, mem.mem_user_data) == nil)
    }
}
