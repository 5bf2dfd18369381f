import NIOCore

/// An ordered list of HTTP/2 header fields, kept as bytes in one `ByteBuffer`.
///
/// Why bytes and not `[(String, String)]`: a request or response on the hot path then costs one
/// allocation for all its fields, nghttp2 can be handed pointers into the buffer without building
/// Swift strings, and duplicates and the order received are preserved (the mock APNs detects
/// `DuplicateHeaders`). Lookups are linear, which beats hashing for the ten or so fields a
/// request carries. Names are matched ASCII case-insensitively.
public struct HTTP2Headers: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    /// Entries laid out as `[UInt16 name length][UInt32 value length][name][value]`.
    private(set) var storage: ByteBuffer
    /// The number of fields.
    public private(set) var count: Int

    static let entryHeaderSize = 6

    /// An empty list; `minimumCapacity` reserves bytes for names, values and 6 bytes per field.
    /// Without a capacity no memory is allocated: empty lists share one buffer, copied on the
    /// first write (a stream's and a response's placeholder lists are created per request).
    public init(minimumCapacity: Int = 0) {
        self.storage =
            minimumCapacity == 0 ? Self.sharedEmptyStorage : ByteBufferAllocator().buffer(capacity: minimumCapacity)
        self.count = 0
    }

    private static let sharedEmptyStorage = ByteBufferAllocator().buffer(capacity: 0)

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
            self.storage.clear()
        } else {
            self.storage = Self.sharedEmptyStorage
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
        self.storage.writeImmutableBuffer(other.storage)
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
        precondition(Self.fits(name: name.count, value: value.count), "header field too long")
        let total = Self.entryHeaderSize + name.count + value.count
        // reserve + withVeryUnsafeMutableBytes + moveWriterIndex: measured cheaper than the
        // write/withUnsafeMutableWritableBytes APIs, whose generic dropFirst costs more than
        // the copies.
        self.storage.reserveCapacity(minimumWritableBytes: total)
        let offset = self.storage.writerIndex
        self.storage.withVeryUnsafeMutableBytes { storage in
            let base = storage.baseAddress! + offset
            base.storeBytes(of: UInt16(truncatingIfNeeded: name.count).bigEndian, as: UInt16.self)
            (base + 2).storeBytes(of: UInt32(truncatingIfNeeded: value.count).bigEndian, as: UInt32.self)
            if let source = name.baseAddress {
                (base + Self.entryHeaderSize).copyMemory(from: source, byteCount: name.count)
            }
            if let source = value.baseAddress {
                (base + Self.entryHeaderSize + name.count).copyMemory(from: source, byteCount: value.count)
            }
        }
        self.storage.moveWriterIndex(forwardBy: total)
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
        self.storage.withUnsafeReadableBytes { bytes in
            let origin = self.storage.readerIndex
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
        var index = self.storage.readerIndex
        let end = self.storage.writerIndex
        while index < end {
            guard let nameLength = self.storage.getInteger(at: index, as: UInt16.self),
                let valueLength = self.storage.getInteger(at: index + 2, as: UInt32.self)
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
        return self.storage.withUnsafeReadableBytes { bytes in
            let offset = range.lowerBound - self.storage.readerIndex
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
