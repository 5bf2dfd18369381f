import CNGHTTP2

/// A pooling allocator for one nghttp2 session (`nghttp2_mem`): the pool's state, and the table
/// of its functions nghttp2 calls.
///
/// nghttp2 makes about twenty small allocations per request and frees them a moment later;
/// recycling blocks per size class makes most of them a pointer move instead of a trip through
/// malloc (~3,000 instructions per request). The functions are C (`salvo_pool_allocator.h`,
/// which explains the layout): nghttp2 calls them through function pointers, and in Swift each
/// call also went through a C-to-Swift thunk (~140 instructions more per campaign notification
/// in `make bench-instructions`). Not thread-safe, and it need not be: nghttp2 only allocates
/// inside calls made on the session's event loop, and in `nghttp2_session_del`.
final class NGHTTP2Allocator {
    /// Free-list heads and counts per size class, reached by the C functions through
    /// `mem_user_data`.
    private let pool: UnsafeMutablePointer<salvo_pool>

    init() {
        self.pool = .allocate(capacity: 1)
        self.pool.initialize(to: salvo_pool())
    }

    deinit {
        salvo_pool_drain(self.pool)
        self.pool.deallocate()
    }

    /// The `nghttp2_mem` table for a session. This allocator must outlive that session
    /// (NGHTTP2Session holds it and deletes the session first).
    func makeMem() -> nghttp2_mem {
        nghttp2_mem(
            mem_user_data: UnsafeMutableRawPointer(self.pool),
            malloc: salvo_pool_malloc,
            free: salvo_pool_free,
            calloc: salvo_pool_calloc,
            realloc: salvo_pool_realloc
        )
    }
}
