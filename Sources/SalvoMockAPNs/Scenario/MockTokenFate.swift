import SalvoAPNs

/// Which device tokens the mock treats as dead (410 `Unregistered`) or malformed (400
/// `BadDeviceToken`), as a pure function of the token, so a load generator can predict the
/// answer to every notification it sends and check the worker's feedback against it.
///
/// The function (also in `docs/mock-apns.md`):
/// 1. `hash` = FNV-1a 64-bit over the token's lowercase hex ASCII (offset basis
///    `0xcbf29ce484222325`, prime `0x100000001b3`);
/// 2. `bucket = hash % 1_000_000`;
/// 3. `bucket < unregistered × 1e6` → `Unregistered`, whose `timestamp` is the receive time minus
///    one day, in milliseconds (``unregisteredTimestamp(receivedAtMilliseconds:)``);
/// 4. else `bucket < (unregistered + badDeviceToken) × 1e6` → `BadDeviceToken`;
/// 5. else the token is valid.
public struct MockTokenFate: Sendable, Hashable {
    /// Fraction of tokens answered 410 `Unregistered`, 0…1. Default: 0.
    public var unregistered: Double
    /// Fraction of tokens answered 400 `BadDeviceToken`, 0…1. Default: 0.
    public var badDeviceToken: Double

    /// The number of buckets the hash is reduced to: fractions resolve to one in a million.
    public static let bucketCount: UInt64 = 1_000_000
    /// How long before the receive time an `Unregistered` token is said to have died.
    public static let unregisteredAgeMilliseconds: Int64 = 86_400_000

    public enum Outcome: Sendable, Hashable {
        case valid
        case unregistered
        case badDeviceToken
    }

    public init(unregistered: Double = 0, badDeviceToken: Double = 0) {
        self.unregistered = unregistered
        self.badDeviceToken = badDeviceToken
    }

    /// The outcome for a token.
    public func outcome(for token: DeviceToken) -> Outcome {
        self.outcome(forBucket: token.withHexBytes { Self.bucket(ofHex: $0) })
    }

    /// The outcome for a bucket (`hash % 1_000_000`).
    public func outcome(forBucket bucket: UInt64) -> Outcome {
        let unregisteredLimit = Self.limit(self.unregistered)
        if bucket < unregisteredLimit { return .unregistered }
        if bucket < Self.limit(self.unregistered + self.badDeviceToken) { return .badDeviceToken }
        return .valid
    }

    /// Whether every token is valid (the function need not run).
    public var isTrivial: Bool { self.unregistered <= 0 && self.badDeviceToken <= 0 }

    /// The `timestamp` of an `Unregistered` answer: receive time minus one day, in milliseconds.
    public static func unregisteredTimestamp(receivedAtMilliseconds: Int64) -> Int64 {
        receivedAtMilliseconds - self.unregisteredAgeMilliseconds
    }

    /// FNV-1a 64-bit over the bytes (the token's lowercase hex ASCII).
    public static func hash(ofHex hex: some Sequence<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in hex {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return hash
    }

    /// `hash(ofHex:) % 1_000_000`.
    public static func bucket(ofHex hex: some Sequence<UInt8>) -> UInt64 {
        self.hash(ofHex: hex) % self.bucketCount
    }

    /// Fractions outside 0…1 are clamped and NaN counts as 0 (validation reports them first; a
    /// fate built in code may skip it, and `UInt64(_:)` would trap on NaN).
    private static func limit(_ fraction: Double) -> UInt64 {
        guard fraction > 0 else { return 0 }
        guard fraction < 1 else { return self.bucketCount }
        return UInt64((fraction * Double(self.bucketCount)).rounded())
    }
}

extension MockTokenFate: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case unregistered
        case badDeviceToken = "bad_device_token"
    }

    public init(from decoder: any Decoder) throws {
        try StrictKeys.check(decoder, allowed: CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.unregistered = try container.decodeIfPresent(Double.self, forKey: .unregistered) ?? 0
        self.badDeviceToken = try container.decodeIfPresent(Double.self, forKey: .badDeviceToken) ?? 0
    }
}
