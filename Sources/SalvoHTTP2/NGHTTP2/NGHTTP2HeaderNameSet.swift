/// A few header names (the session's never-indexed and kept names), matched against a name as
/// nghttp2 sends or delivers it.
///
/// Why not `[[UInt8]]` and `elementsEqual`: the session asks for every field of every request and
/// response, and walking an array of arrays retained each inner array and compared byte by byte.
/// Most names are ruled out by their length alone; a name of 4 to 8 bytes (`apns-id`) is then one
/// word compared with a few.
struct NGHTTP2HeaderNameSet {
    /// Bit n set when a name is n bytes long (names of 64 bytes or more set bit 63).
    private let lengths: UInt64
    /// The names of 4 to 8 bytes, by length and ``key(_:)``.
    private let shortNames: [(count: Int, key: UInt64)]
    /// The other names.
    private let otherNames: [[UInt8]]

    init(_ names: [String]) {
        let bytes = names.map { Array($0.utf8) }
        self.lengths = bytes.reduce(0) { $0 | 1 << min($1.count, 63) }
        self.shortNames = bytes.filter(Self.isShort).map { name in
            (name.count, name.withUnsafeBytes(Self.key))
        }
        self.otherNames = bytes.filter { !Self.isShort($0) }
    }

    func contains(_ name: UnsafeRawBufferPointer) -> Bool {
        guard self.lengths & 1 << min(name.count, 63) != 0 else { return false }
        if Self.isShort(name) {
            let key = Self.key(name)
            for short in self.shortNames where short.count == name.count && short.key == key { return true }
            return false
        }
        for candidate in self.otherNames where candidate.count == name.count && candidate.elementsEqual(name) {
            return true
        }
        return false
    }

    private static func isShort(_ name: some Collection<UInt8>) -> Bool {
        (4...8).contains(name.count)
    }

    /// A name of 4 to 8 bytes as one word: its first four bytes and its last four (they overlap
    /// below eight), which together with the length tell the name apart from any other.
    private static func key(_ name: UnsafeRawBufferPointer) -> UInt64 {
        let first = name.loadUnaligned(as: UInt32.self)
        let last = name.loadUnaligned(fromByteOffset: name.count - 4, as: UInt32.self)
        return UInt64(first) | UInt64(last) << 32
    }
}
