import CNGHTTP2

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A pooling allocator for one nghttp2 session (`nghttp2_mem`).
///
/// nghttp2 makes about twenty small allocations per request (streams, queue items, header
/// copies, HPACK buffers) and frees them a moment later; glibc's malloc serves those at ~3,000
/// instructions per request. Recycling blocks per size class makes most of them a pointer move.
/// Not thread-safe, and it need not be: nghttp2 only allocates inside calls made on the
/// session's event loop, and in `nghttp2_session_del`.
///
/// Layout: the pool state is a plain array of words (free-list heads, then counts) that the C
/// callbacks reach through `mem_user_data` without touching Swift objects. Every block starts
/// with a 16-byte header holding its size class (keeping malloc's 16-byte alignment); a free
/// block's first payload word links it into its class's free list.
final class NGHTTP2Allocator {
    /// Blocks of 64 ... 4096 bytes (payloads of 48 ... 4080 bytes); larger requests go to malloc.
    private static let classCount = 7
    private static let smallestBlockShift = 6
    private static let headerSize = 16
    private static let unpooled = UInt8.max
    /// Blocks kept per class beyond which freed blocks return to malloc.
    private static let maxPooledPerClass = 4096

    /// `classCount` free-list heads followed by `classCount` counts.
    private let state: UnsafeMutablePointer<Int>

    init() {
        self.state = .allocate(capacity: 2 * Self.classCount)
        self.state.initialize(repeating: 0, count: 2 * Self.classCount)
    }

    deinit {
        for index in 0..<Self.classCount {
            var block = UnsafeMutableRawPointer(bitPattern: self.state[index])
            while let current = block {
                block = (current + Self.headerSize).load(as: UnsafeMutableRawPointer?.self)
                free(current)
            }
        }
        self.state.deallocate()
    }

    /// The `nghttp2_mem` table for a session. This allocator must outlive that session
    /// (NGHTTP2Session holds it and deletes the session first).
    func makeMem() -> nghttp2_mem {
        nghttp2_mem(
            mem_user_data: UnsafeMutableRawPointer(self.state),
            malloc: { size, state in NGHTTP2Allocator.allocate(size, state!.assumingMemoryBound(to: Int.self)) },
            free: { pointer, state in NGHTTP2Allocator.release(pointer, state!.assumingMemoryBound(to: Int.self)) },
            calloc: { count, size, state in
                let (total, overflow) = count.multipliedReportingOverflow(by: size)
                guard !overflow,
                    let pointer = NGHTTP2Allocator.allocate(total, state!.assumingMemoryBound(to: Int.self))
                else { return nil }
                memset(pointer, 0, total)
                return pointer
            },
            realloc: { pointer, size, state in
                NGHTTP2Allocator.reallocate(pointer, size, state!.assumingMemoryBound(to: Int.self))
            }
        )
    }

    /// The class whose blocks fit `size` payload bytes, or nil when it is too large to pool.
    private static func sizeClass(for size: Int) -> Int? {
        let needed = size + Self.headerSize
        guard needed > 1 << Self.smallestBlockShift else { return 0 }
        // The smallest power of two holding `needed` is 2^(bit width of needed - 1).
        let index = (Int.bitWidth - (needed - 1).leadingZeroBitCount) - Self.smallestBlockShift
        return index < Self.classCount ? index : nil
    }

    private static func allocate(_ size: Int, _ state: UnsafeMutablePointer<Int>) -> UnsafeMutableRawPointer? {
        guard let index = Self.sizeClass(for: size) else {
            guard let block = malloc(size + Self.headerSize) else { return nil }
            block.storeBytes(of: Self.unpooled, as: UInt8.self)
            return block + Self.headerSize
        }
        let block: UnsafeMutableRawPointer
        if let head = UnsafeMutableRawPointer(bitPattern: state[index]) {
            state[index] = Int(bitPattern: (head + Self.headerSize).load(as: UnsafeMutableRawPointer?.self))
            state[Self.classCount + index] -= 1
            block = head
        } else {
            guard let fresh = malloc(1 << (Self.smallestBlockShift + index)) else { return nil }
            block = fresh
        }
        block.storeBytes(of: UInt8(index), as: UInt8.self)
        return block + Self.headerSize
    }

    private static func release(_ pointer: UnsafeMutableRawPointer?, _ state: UnsafeMutablePointer<Int>) {
        guard let pointer else { return }
        let block = pointer - Self.headerSize
        let index = Int(block.load(as: UInt8.self))
        guard index != Int(Self.unpooled), state[Self.classCount + index] < Self.maxPooledPerClass else {
            free(block)
            return
        }
        pointer.storeBytes(of: UnsafeMutableRawPointer(bitPattern: state[index]), as: UnsafeMutableRawPointer?.self)
        state[index] = Int(bitPattern: block)
        state[Self.classCount + index] += 1
    }

    private static func reallocate(
        _ pointer: UnsafeMutableRawPointer?, _ size: Int, _ state: UnsafeMutablePointer<Int>
    ) -> UnsafeMutableRawPointer? {
        guard let pointer else { return Self.allocate(size, state) }
        let block = pointer - Self.headerSize
        let index = Int(block.load(as: UInt8.self))
        if index == Int(Self.unpooled) {
            // Unpooled blocks stay unpooled: malloc may resize them in place.
            guard let grown = realloc(block, size + Self.headerSize) else { return nil }
            return grown + Self.headerSize
        }
        let capacity = (1 << (Self.smallestBlockShift + index)) - Self.headerSize
        if size <= capacity { return pointer }
        guard let moved = Self.allocate(size, state) else { return nil }
        moved.copyMemory(from: pointer, byteCount: capacity)
        Self.release(pointer, state)
        return moved
    }
}
