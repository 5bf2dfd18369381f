import Testing

@testable import SalvoHTTP2

/// The name sets the session matches sent (never-indexed) and received (kept) names against.
@Suite struct NGHTTP2HeaderNameSetTests {
    private static func contains(_ set: NGHTTP2HeaderNameSet, _ name: String) -> Bool {
        Array(name.utf8).withUnsafeBytes { set.contains($0) }
    }

    @Test("names of every length class match exactly, and only themselves")
    func exactMatches() {
        let names = [
            "te", "via", "etag", "apns-id", ":authori", "apns-unique-id", "x-" + String(repeating: "a", count: 70),
        ]
        let set = NGHTTP2HeaderNameSet(names)
        for name in names { #expect(Self.contains(set, name), "\(name)") }
        // Same lengths, one byte different: at the start, in the middle, at the end.
        for other in [
            "tf", "vib", "etah", "apns-ie", "apnx-id", "bpns-id", "apns\u{0}id", ":authorj", "apns-unique-ie",
            "x-" + String(repeating: "a", count: 69) + "b", "", "apns-i", "apns-idx", "apns-unique-i",
        ] {
            #expect(!Self.contains(set, other), "\(other)")
        }
    }

    @Test("an empty set holds nothing")
    func empty() {
        let set = NGHTTP2HeaderNameSet([])
        #expect(!Self.contains(set, "apns-id"))
        #expect(!Self.contains(set, ""))
    }
}
