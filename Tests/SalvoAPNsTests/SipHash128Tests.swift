import Testing

@testable import SalvoAPNs

/// The reference implementation's `vectors_sip128`: key 00…0f, message 00…(n-1).
@Suite struct SipHash128Tests {
    static let referenceTags = [
        "a3817f04ba25a8e66df67214c7550293",
        "da87c1d86b99af44347659119b22fc45",
        "8177228da4a45dc7fca38bdef60affe4",
        "9c70b60c5267a94e5f33b6b02985ed51",
        "f88164c12d9c8faf7d0f6e7c7bcd5579",
        "1368875980776f8854527a07690e9627",
    ]

    static func tag(messageLength: Int, pieces: [Int]) -> String {
        var hasher = SipHash128(k0: 0x0706_0504_0302_0100, k1: 0x0f0e_0d0c_0b0a_0908)
        let message = (0..<messageLength).map { UInt8($0) }
        var start = 0
        for piece in pieces + [messageLength] where piece >= start {
            message[start..<min(piece, messageLength)].withUnsafeBytes { hasher.update($0) }
            start = min(piece, messageLength)
        }
        let (first, second) = hasher.finalize()
        return [first, second].map { word in
            (0..<8).map { byte in
                let value = UInt8(truncatingIfNeeded: word >> (8 * UInt64(byte)))
                return (value < 16 ? "0" : "") + String(value, radix: 16)
            }.joined()
        }.joined()
    }

    @Test(arguments: 0..<6)
    func matchesTheReferenceVectors(length: Int) {
        #expect(Self.tag(messageLength: length, pieces: []) == Self.referenceTags[length])
    }

    /// Whole words and the tail, fed in one piece or split anywhere, give the same tag.
    @Test func feedingInPiecesDoesNotChangeTheTag() {
        let whole = Self.tag(messageLength: 45, pieces: [])
        #expect(whole != Self.tag(messageLength: 44, pieces: []))
        for split in [[1], [7], [8], [3, 11], [9, 17, 30], [5, 6, 7, 8, 9]] {
            #expect(Self.tag(messageLength: 45, pieces: split) == whole, "split at \(split)")
        }
        #expect(Self.tag(messageLength: 4, pieces: [1, 2]) == Self.referenceTags[4])
    }
}
