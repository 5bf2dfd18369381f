import CNGHTTP2
import NIOCore

/// The `nghttp2_nv` entries of the shared header block a session submitted last
/// (``HTTP2SharedHeaders``), pointing into the block's own bytes, and the blocks nghttp2 may still
/// read.
///
/// nghttp2 reads a `NO_COPY` field when it encodes the HEADERS frame, which may be later than the
/// submit call: at the next `mem_send`, or once a stream slot frees. So a block stays referenced
/// here while it is current, and once replaced until nghttp2's outbound queue is empty
/// (``releaseRetired()``), whatever happened to its requests meanwhile (a timeout or a closing
/// connection may forget a request whose HEADERS are still queued). Past ``retiredLimit`` blocks
/// waiting that way — a queue that does not drain while the fields keep changing — a new block is
/// handed over to be copied, as fields without a block are.
///
/// The pointers escape `withUnsafeReadableBytes`, and that is sound here alone: the block is
/// immutable and referenced by this object, so its buffer is neither written (no copy on write
/// can move the bytes) nor freed while an entry or a queued frame points into it.
final class NGHTTP2SharedEntries {
    /// More retired blocks than this and new ones are copied by nghttp2 instead.
    static let retiredLimit = 64

    private(set) var block: HTTP2SharedHeaders?
    /// `count` entries for `block`'s fields, in order.
    private(set) var entries: UnsafeMutablePointer<nghttp2_nv>
    private(set) var count = 0
    private var capacity = 16
    /// Whether `entries` point into `block` (`NO_COPY`), so that it must outlive queued frames.
    private var referencesBlock = false
    /// Replaced blocks that queued HEADERS may still point into.
    private var retired: [HTTP2SharedHeaders] = []

    init() {
        self.entries = .allocate(capacity: self.capacity)
    }

    deinit {
        self.entries.deallocate()
    }

    var hasRetired: Bool { !self.retired.isEmpty }

    /// Points the entries at `block`'s fields unless they already are; `isUnindexed` picks the
    /// fields sent as never-indexed literals.
    func use(_ block: HTTP2SharedHeaders, isUnindexed: (UnsafeRawBufferPointer) -> Bool) {
        guard block !== self.block else { return }
        if let previous = self.block, self.referencesBlock { self.retired.append(previous) }
        let headers = block.headers
        if headers.count > self.capacity {
            self.entries.deallocate()
            self.capacity = max(headers.count, self.capacity * 2)
            self.entries = .allocate(capacity: self.capacity)
        }
        let referencesBlock = self.retired.count < Self.retiredLimit
        var index = 0
        if headers.count > 0 {
            headers.storage.withUnsafeReadableBytes { raw in
                let base = UnsafeMutablePointer(mutating: raw.bindMemory(to: UInt8.self).baseAddress!)
                let origin = headers.storage.readerIndex
                headers.forEachEntry { name, value in
                    let namePointer = base + (name.lowerBound - origin)
                    let nameBytes = UnsafeRawBufferPointer(start: namePointer, count: name.count)
                    var flags =
                        isUnindexed(nameBytes) ? NGHTTP2_NV_FLAG_NO_INDEX.rawValue : NGHTTP2_NV_FLAG_NONE.rawValue
                    if referencesBlock {
                        flags |= NGHTTP2_NV_FLAG_NO_COPY_VALUE.rawValue
                        // nghttp2 lower-cases only the names it copies.
                        if !nameBytes.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) {
                            flags |= NGHTTP2_NV_FLAG_NO_COPY_NAME.rawValue
                        }
                    }
                    self.entries[index] = nghttp2_nv(
                        name: namePointer, value: base + (value.lowerBound - origin), namelen: name.count,
                        valuelen: value.count, flags: UInt8(flags))
                    index += 1
                    return true
                }
            }
        }
        self.block = block
        self.count = index
        self.referencesBlock = referencesBlock
    }

    /// Forgets the replaced blocks: call only when nghttp2's outbound queue is empty, so no
    /// queued HEADERS frame can point into them.
    func releaseRetired() {
        self.retired.removeAll(keepingCapacity: true)
    }
}
