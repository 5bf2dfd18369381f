import NIOCore

/// An ordered list of HTTP/2 header fields, kept as bytes in one `ByteBuffer`.
///
/// Why bytes and not `[(String, String)]`: a request or response on the hot path then costs one
/// allocation for all its fields, nghttp2 can be handed pointers into the buffer without building
/// Swift strings, and duplicates and the order received are preserved (the mock APNs detects
/// `DuplicateHeaders`). Lookups are linear, which beats hashing for the ten or so fields a
/// request carries. Names are matched ASCII case-insensitively.
public struct HTTP2Headers: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    /// Entries laid out as `[UInt16 name length][UInt32 value length][name][value]`; nil until
    /// the first field (or a reserved capacity). Why optional: a stream's and a response's
    /// placeholder lists are created, copied and dropped per request, and an empty list that
    /// shared one buffer paid a reference count (an atomic operation on one object, from every
    /// event loop) at each of those steps; nil costs none.
    private var bytes: ByteBuffer?
    /// The number of fields.
    public private(set) var count: Int

    static let entryHeaderSize = 6

    /// An empty list; `minimumCapacity` reserves bytes for names, values and 6 bytes per field.
    /// Without a capacity no memory is allocated until the first field.
    public init(minimumCapacity: Int = 0) {
        self.bytes = minimumCapacity == 0 ? nil : ByteBufferAllocator().buffer(capacity: minimumCapacity)
        self.count = 0
    }

    /// The entries' bytes (an empty buffer for a list that never held a field).
    var storage: ByteBuffer { self.bytes ?? Self.emptyStorage }

    private static let emptyStorage = ByteBufferAllocator().buffer(capacity: 0)

    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// The fields in `pairs`, in order, duplicates kept.
    public init(_ pairs: [(String, String)]) {
        var bytes = 0
        for (name, value) in pairs { bytes += Self.entryHeaderSize + name.utf8.count + value.utf8.count }
        self.init(minimumCapacity: bytes)
        for (name, value) in pairs { self.add(name: name, value: value) }
    }

    public var isEmpty: Bool { self.count == 0 }

    /// Removes every field. With `keepingCapacity`, a list no one else shares keeps its memory,
    /// so a sender can encode request after request into one buffer (nghttp2 copies the fields
    /// when a request is submitted).
    public mutating func removeAll(keepingCapacity: Bool = false) {
        if keepingCapacity {
            self.bytes?.clear()
        } else {
            self.bytes = nil
        }
        self.count = 0
    }

    /// Appends a field. Names should be lower case (HTTP/2 requires it; nghttp2 peers reject
    /// upper-case names).
    public mutating func add(name: String, value: String) {
        let added =
            name.utf8.withContiguousStorageIfAvailable { name in
                value.utf8.withContiguousStorageIfAvailable { value in
                    self.add(name: UnsafeRawBufferPointer(name), value: UnsafeRawBufferPointer(value))
                } != nil
            } ?? false
        if !added {
            // Bridged or otherwise non-contiguous strings: copy them once.
            self.add(name: ByteBuffer(string: name), value: ByteBuffer(string: value))
        }
    }

    /// Appends a field whose value is already bytes (a token, a pre-encoded JWT).
    public mutating func add(name: String, value: ByteBuffer) {
        let added =
            name.utf8.withContiguousStorageIfAvailable { name in
                value.withUnsafeReadableBytes { value in
                    self.add(name: UnsafeRawBufferPointer(name), value: value)
                }
            } != nil
        if !added { self.add(name: ByteBuffer(string: name), value: value) }
    }

    private mutating func add(name: ByteBuffer, value: ByteBuffer) {
        name.withUnsafeReadableBytes { name in
            value.withUnsafeReadableBytes { value in
                self.add(name: name, value: value)
            }
        }
    }

    /// Appends a field whose value is already bytes (a token path, an `apns-id`, a bearer token
    /// prepared once): no String is built on the hot path.
    public mutating func add(name: String, value: [UInt8]) {
        var name = name
        name.withUTF8 { name in
            value.withUnsafeBytes { value in self.add(name: UnsafeRawBufferPointer(name), value: value) }
        }
    }

    /// Appends a field whose name and value are both bytes (fields encoded once per job).
    public mutating func add(name: [UInt8], value: [UInt8]) {
        name.withUnsafeBytes { name in
            value.withUnsafeBytes { value in self.add(name: name, value: value) }
        }
    }

    /// Appends every field of `other`, in order.
    public mutating func add(contentsOf other: HTTP2Headers) {
        guard let added = other.bytes, other.count > 0 else { return }
        if self.bytes == nil {
            self.bytes = added
        } else {
            self.bytes!.writeImmutableBuffer(added)
        }
        self.count += other.count
    }

    /// Longest name a field may have: entries store its length in 16 bits.
    public static let maximumNameLength = Int(UInt16.max)

    /// Whether a field of these sizes can be stored. Received fields are checked before they are
    /// added (`HTTP2SessionHandler.Configuration.maxHeaderListSize`), so a peer's oversized name
    /// is a stream error, never the precondition below.
    public static func fits(name: Int, value: Int) -> Bool {
        name <= Self.maximumNameLength && value <= Int(UInt32.max)
    }

    /// Appends a field from bytes valid only for the duration of the call: one capacity check
    /// and two copies, because this runs for every header of every request and response (public
    /// for servers writing a value into a stack buffer, such as the mock's `apns-id`). A name
    /// longer than ``maximumNameLength`` is a programming error (fields this process builds are
    /// short; received ones are bounded first).
    public mutating func add(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        self.appendEntry(nameCount: name.count, valueCount: value.count) { nameBytes, valueBytes in
            if let source = name.baseAddress { nameBytes.copyMemory(from: source, byteCount: name.count) }
            if let source = value.baseAddress { valueBytes.copyMemory(from: source, byteCount: value.count) }
        }
    }

    /// Appends a field named by a literal whose value `writeValue` writes in place, into exactly
    /// `valueCount` bytes: a value built per request (a token's `:path`, an `apns-id`) is then
    /// copied nowhere before the header block.
    public mutating func add(
        name: StaticString, valueCount: Int, _ writeValue: (UnsafeMutableRawBufferPointer) -> Void
    ) {
        self.appendEntry(nameCount: name.utf8CodeUnitCount, valueCount: valueCount) { nameBytes, valueBytes in
            nameBytes.copyMemory(from: name.utf8Start, byteCount: name.utf8CodeUnitCount)
            writeValue(UnsafeMutableRawBufferPointer(start: valueBytes, count: valueCount))
        }
    }

    /// Writes one entry's lengths and lets `write` fill its name and value bytes.
    @inline(__always)
    private mutating func appendEntry(
        nameCount: Int, valueCount: Int,
        _ write: (_ name: UnsafeMutableRawPointer, _ value: UnsafeMutableRawPointer) -> Void
    ) {
        precondition(Self.fits(name: nameCount, value: valueCount), "header field too long")
        let total = Self.entryHeaderSize + nameCount + valueCount
        // reserve + withVeryUnsafeMutableBytes + moveWriterIndex: measured cheaper than the
        // write/withUnsafeMutableWritableBytes APIs, whose generic dropFirst costs more than
        // the copies.
        if self.bytes == nil {
            self.bytes = ByteBufferAllocator().buffer(capacity: total)
        } else {
            self.bytes!.reserveCapacity(minimumWritableBytes: total)
        }
        let offset = self.bytes!.writerIndex
        self.bytes!.withVeryUnsafeMutableBytes { storage in
            let base = storage.baseAddress! + offset
            base.storeBytes(of: UInt16(truncatingIfNeeded: nameCount).bigEndian, as: UInt16.self)
            (base + 2).storeBytes(of: UInt32(truncatingIfNeeded: valueCount).bigEndian, as: UInt32.self)
            write(base + Self.entryHeaderSize, base + Self.entryHeaderSize + nameCount)
        }
        self.bytes!.moveWriterIndex(forwardBy: total)
        self.count += 1
    }

    /// The first value of the field `name`, as a string.
    public func first(name: String) -> String? {
        guard let range = self.firstValueRange(name: name) else { return nil }
        return self.storage.getString(at: range.lowerBound, length: range.count)
    }

    /// The first value of the field `name`, as bytes sharing this list's storage (no copy).
    public func firstBytes(name: String) -> ByteBuffer? {
        guard let range = self.firstValueRange(name: name) else { return nil }
        return self.storage.getSlice(at: range.lowerBound, length: range.count)
    }

    /// Every value of the field `name`, in order.
    public func values(name: String) -> [String] {
        self.compactMap { $0.name.utf8.elementsEqualIgnoringASCIICase(name.utf8) ? $0.value : nil }
    }

    /// Whether a field named `name` is present.
    public func contains(name: String) -> Bool {
        self.firstValueRange(name: name) != nil
    }

    /// How many fields are named `name` (the mock's duplicate-header check).
    public func count(name: String) -> Int {
        var found = 0
        self.forEachEntry { nameRange, _ in
            if self.nameMatches(nameRange, name) { found += 1 }
            return true
        }
        return found
    }

    /// Calls `body` with every field's name and value, in order, as raw bytes valid only during
    /// the call: no copies, no Strings and no reference counting, for a server that inspects every
    /// request's headers (the mock APNs).
    public func forEachField(_ body: (_ name: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) -> Void) {
        guard let storage = self.bytes else { return }
        storage.withUnsafeReadableBytes { bytes in
            let origin = storage.readerIndex
            self.forEachEntry { name, value in
                body(
                    UnsafeRawBufferPointer(rebasing: bytes[(name.lowerBound - origin)..<(name.upperBound - origin)]),
                    UnsafeRawBufferPointer(rebasing: bytes[(value.lowerBound - origin)..<(value.upperBound - origin)]))
                return true
            }
        }
    }

    public func makeIterator() -> Iterator {
        Iterator(storage: self.storage)
    }

    public struct Iterator: IteratorProtocol {
        var storage: ByteBuffer

        public mutating func next() -> HTTP2Header? {
            guard let nameLength = self.storage.readInteger(as: UInt16.self),
                let valueLength = self.storage.readInteger(as: UInt32.self),
                let name = self.storage.readString(length: Int(nameLength)),
                let value = self.storage.readString(length: Int(valueLength))
            else { return nil }
            return HTTP2Header(name: name, value: value)
        }
    }

    public static func == (lhs: HTTP2Headers, rhs: HTTP2Headers) -> Bool {
        lhs.count == rhs.count && lhs.storage == rhs.storage
    }

    /// Walks the entries as (name range, value range) in `storage`'s index space; `body`
    /// returns false to stop.
    func forEachEntry(_ body: (Range<Int>, Range<Int>) -> Bool) {
        guard let storage = self.bytes else { return }
        var index = storage.readerIndex
        let end = storage.writerIndex
        while index < end {
            guard let nameLength = storage.getInteger(at: index, as: UInt16.self),
                let valueLength = storage.getInteger(at: index + 2, as: UInt32.self)
            else { return }
            let nameStart = index + Self.entryHeaderSize
            let valueStart = nameStart + Int(nameLength)
            let valueEnd = valueStart + Int(valueLength)
            if !body(nameStart..<valueStart, valueStart..<valueEnd) { return }
            index = valueEnd
        }
    }

    private func firstValueRange(name: String) -> Range<Int>? {
        var result: Range<Int>?
        self.forEachEntry { nameRange, valueRange in
            if self.nameMatches(nameRange, name) {
                result = valueRange
                return false
            }
            return true
        }
        return result
    }

    private func nameMatches(_ range: Range<Int>, _ name: String) -> Bool {
        guard range.count == name.utf8.count else { return false }
        guard let storage = self.bytes else { return false }
        return storage.withUnsafeReadableBytes { bytes in
            let offset = range.lowerBound - storage.readerIndex
            return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + range.count])
                .elementsEqualIgnoringASCIICase(name.utf8)
        }
    }
}

extension Sequence<UInt8> {
    /// Byte-wise equality where ASCII letters compare case-insensitively.
    func elementsEqualIgnoringASCIICase(_ other: some Sequence<UInt8>) -> Bool {
        self.elementsEqual(other) { a, b in
            a == b || (a | 0x20 == b | 0x20 && (a | 0x20) >= UInt8(ascii: "a") && (a | 0x20) <= UInt8(ascii: "z"))
        }
    }
}
