/// The lowercase hex text of a ``DeviceToken``.
///
/// Every token Apple issues today has 64 hex characters. Those (and shorter ones) are kept
/// inline in eight words, so building a notification's token costs no allocation, and copying
/// it as the notification travels (batch, pool, connection, outcome) costs no reference count.
/// Longer tokens, which Apple's documentation allows for, live in an array.
///
/// The representation is canonical (≤ 64 characters: inline, with the unused bytes zero; longer:
/// the array), so the synthesized `==` and hash compare tokens by their text.
@usableFromInline
enum DeviceTokenStorage: Sendable, Hashable {
    case inline(InlineHex)
    case heap([UInt8])

    /// Hex text of at most ``capacity`` bytes in place.
    @usableFromInline
    struct InlineHex: Sendable, Hashable {
        static let capacity = 64

        @usableFromInline
        typealias Words = (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)

        private var words: Words = (0, 0, 0, 0, 0, 0, 0, 0)
        let count: UInt8

        /// Copies `hex` (at most ``capacity`` bytes), setting bit 5 of every byte: a validated hex
        /// digit is then lowercase (digits already have it; it turns A–F into a–f).
        init(lowercasing hex: UnsafeRawBufferPointer) {
            precondition(hex.count <= Self.capacity, "inline hex holds at most 64 characters")
            self.count = UInt8(hex.count)
            if hex.count == Self.capacity {
                // Every token Apple issues: eight words, loaded and stored without a loop or a
                // closure (one token is built per notification).
                let upper: UInt64 = 0x2020_2020_2020_2020
                func word(_ index: Int) -> UInt64 {
                    hex.loadUnaligned(fromByteOffset: 8 * index, as: UInt64.self) | upper
                }
                self.words = (word(0), word(1), word(2), word(3), word(4), word(5), word(6), word(7))
                return
            }
            withUnsafeMutableBytes(of: &self.words) { raw in
                for index in 0..<hex.count { raw[index] = hex[index] | 0x20 }
            }
        }

        func withBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
            try withUnsafeBytes(of: self.words) { raw in
                try body(UnsafeRawBufferPointer(rebasing: raw[..<Int(self.count)]))
            }
        }

        @usableFromInline
        static func == (lhs: InlineHex, rhs: InlineHex) -> Bool {
            lhs.count == rhs.count && lhs.words.0 == rhs.words.0 && lhs.words.1 == rhs.words.1
                && lhs.words.2 == rhs.words.2 && lhs.words.3 == rhs.words.3 && lhs.words.4 == rhs.words.4
                && lhs.words.5 == rhs.words.5 && lhs.words.6 == rhs.words.6 && lhs.words.7 == rhs.words.7
        }

        @usableFromInline
        func hash(into hasher: inout Hasher) {
            self.withBytes { hasher.combine(bytes: $0) }
        }
    }

    /// Validated hex in either case, stored lowercase (see ``InlineHex/init(lowercasing:)``).
    init(validatedHex hex: UnsafeRawBufferPointer) {
        if hex.count <= InlineHex.capacity {
            self = .inline(InlineHex(lowercasing: hex))
        } else {
            self = .heap(hex.map { $0 | 0x20 })
        }
    }

    func withHexBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        switch self {
        case .inline(let inline): try inline.withBytes(body)
        case .heap(let bytes): try bytes.withUnsafeBytes(body)
        }
    }
}
