import SalvoAPNs
import Testing

@testable import SalvoMockAPNs

@Suite("MockTokenFate: the documented, predictable token function")
struct MockTokenFateTests {
    @Test("FNV-1a 64-bit matches the published test vectors")
    func fnvVectors() {
        #expect(MockTokenFate.hash(ofHex: Array("".utf8)) == 0xcbf2_9ce4_8422_2325)
        #expect(MockTokenFate.hash(ofHex: Array("a".utf8)) == 0xaf63_dc4c_8601_ec8c)
        #expect(MockTokenFate.hash(ofHex: Array("foobar".utf8)) == 0x8594_4171_f739_67e8)
    }

    @Test("bucket boundaries: unregistered first, then BadDeviceToken, then valid")
    func boundaries() {
        let fate = MockTokenFate(unregistered: 0.1, badDeviceToken: 0.05)
        #expect(fate.outcome(forBucket: 0) == .unregistered)
        #expect(fate.outcome(forBucket: 99_999) == .unregistered)
        #expect(fate.outcome(forBucket: 100_000) == .badDeviceToken)
        #expect(fate.outcome(forBucket: 149_999) == .badDeviceToken)
        #expect(fate.outcome(forBucket: 150_000) == .valid)
        #expect(fate.outcome(forBucket: 999_999) == .valid)
        #expect(MockTokenFate().isTrivial)
        #expect(!fate.isTrivial)
    }

    @Test("the token's case does not change its fate, and fractions hold over many tokens")
    func fractions() throws {
        let fate = MockTokenFate(unregistered: 0.2, badDeviceToken: 0.1)
        var counts: [MockTokenFate.Outcome: Int] = [:]
        for index in 0..<20_000 {
            let hex = String(index * 7919, radix: 16)
            let token = try DeviceToken(hex: String(repeating: "A", count: 64 - hex.count) + hex)
            counts[fate.outcome(for: token), default: 0] += 1
            let lower = try DeviceToken(hex: token.hex.lowercased())
            #expect(fate.outcome(for: lower) == fate.outcome(for: token))
        }
        #expect((3_600...4_400).contains(counts[.unregistered] ?? 0))
        #expect((1_600...2_400).contains(counts[.badDeviceToken] ?? 0))
    }

    @Test("the Unregistered timestamp is the receive time minus one day")
    func timestamp() {
        #expect(MockTokenFate.unregisteredTimestamp(receivedAtMilliseconds: 1_700_000_000_000) == 1_699_913_600_000)
    }
}
