import SalvoAPNs
import SalvoMockAPNs

/// Hands out device tokens whose mock fate follows the scenario's mix *exactly*: token `k` is due
/// to be `Unregistered` when that keeps the count at ⌊(k+1)·ratio⌋, and random tokens are drawn
/// until one has the due fate under the mock's own function (`MockTokenFate.outcome(for:)`).
/// Counting instead of drawing fates means a 2% mix is 2% of the tokens actually sent, however
/// short the run.
public struct LoadTestTokenSource: Sendable {
    /// A token and the answer the mock will give it.
    public struct Choice: Sendable, Hashable {
        public var token: DeviceToken
        public var fate: MockTokenFate.Outcome

        public init(token: DeviceToken, fate: MockTokenFate.Outcome) {
            self.token = token
            self.fate = fate
        }
    }

    private var random: LoadTestRandom
    private let mockTokens: MockTokenFate
    private let unregisteredRatio: Double
    private let badDeviceTokenRatio: Double
    public private(set) var issued = 0
    public private(set) var unregisteredIssued = 0
    public private(set) var badDeviceTokenIssued = 0
    /// Bound on draws for one token (a fate with a one-in-a-million bucket needs ~10⁶ on average).
    static let maximumDraws = 50_000_000

    public init(seed: UInt64, mockTokens: MockTokenFate, unregistered: Double, badDeviceToken: Double) {
        self.random = LoadTestRandom(seed: seed)
        self.mockTokens = mockTokens
        self.unregisteredRatio = unregistered
        self.badDeviceTokenRatio = badDeviceToken
    }

    /// The next token of the sequence.
    public mutating func next() throws(LoadTestError) -> Choice {
        let due = dueFate()
        var hex = [UInt8](repeating: 0, count: 64)
        for _ in 0..<Self.maximumDraws {
            fillHex(&hex)
            let fate = mockTokens.outcome(forBucket: MockTokenFate.bucket(ofHex: hex))
            guard fate == due else { continue }
            issued += 1
            if fate == .unregistered { unregisteredIssued += 1 }
            if fate == .badDeviceToken { badDeviceTokenIssued += 1 }
            // 64 lowercase hex characters are always a valid token.
            return Choice(token: try! DeviceToken(hexBytes: hex), fate: fate)
        }
        throw LoadTestError(.tokenSearchExhausted, "no token judged \(due) by the mock in \(Self.maximumDraws) draws")
    }

    /// The fate that keeps each count at ⌊issued·ratio⌋; a token due for both fates goes to
    /// `Unregistered` and the `BadDeviceToken` one follows with the next token.
    private func dueFate() -> MockTokenFate.Outcome {
        let total = Double(issued + 1)
        if unregisteredIssued < Int((total * unregisteredRatio).rounded(.down)) { return .unregistered }
        if badDeviceTokenIssued < Int((total * badDeviceTokenRatio).rounded(.down)) { return .badDeviceToken }
        return .valid
    }

    private mutating func fillHex(_ hex: inout [UInt8]) {
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        for word in 0..<4 {
            var value = random.next()
            for nibble in 0..<16 {
                hex[word * 16 + nibble] = digits[Int(value & 0xF)]
                value >>= 4
            }
        }
    }
}
