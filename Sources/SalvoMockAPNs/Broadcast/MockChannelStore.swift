import SalvoAPNs
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The broadcast channels the mock knows, per app and environment, shared by the channel-management
/// listener (which creates, reads, lists and deletes them) and the APNs listener (whose broadcast
/// endpoint needs the channel and its storage policy). Apple keeps at most ``limit`` channels per
/// app and environment; one more is refused with `CannotCreateChannelConfig`.
///
/// Channel ids are 16 random bytes in standard base64, the shape Apple's ids have.
public final class MockChannelStore: Sendable {
    /// Apple's documented maximum per app and environment.
    public static let appleLimit = 10_000

    public let limit: Int
    private let state = Mutex<[Key: [String: Int]]>([:])

    struct Key: Hashable {
        var environment: APNsEnvironment.Kind
        var bundleID: String
    }

    /// - Parameter limit: Channels per app and environment. Default: Apple's 10,000.
    public init(limit: Int = MockChannelStore.appleLimit) {
        self.limit = limit
    }

    /// A new channel with `storagePolicy` (0: no storage, 1: most recent message stored); nil
    /// when the app already holds ``limit`` channels in `environment`.
    public func create(bundleID: String, environment: APNsEnvironment.Kind, storagePolicy: Int) -> String? {
        let key = Key(environment: environment, bundleID: bundleID)
        return self.state.withLock { state -> String? in
            guard (state[key]?.count ?? 0) < self.limit else { return nil }
            var id = Self.newID()
            while state[key]?[id] != nil { id = Self.newID() }
            state[key, default: [:]][id] = storagePolicy
            return id
        }
    }

    /// The channel's storage policy, or nil when the app has no such channel in `environment`.
    public func storagePolicy(bundleID: String, environment: APNsEnvironment.Kind, channelID: String) -> Int? {
        self.state.withLock { $0[Key(environment: environment, bundleID: bundleID)]?[channelID] }
    }

    /// Deletes the channel; false when there was none.
    public func delete(bundleID: String, environment: APNsEnvironment.Kind, channelID: String) -> Bool {
        self.state.withLock { state in
            state[Key(environment: environment, bundleID: bundleID)]?.removeValue(forKey: channelID) != nil
        }
    }

    /// The app's channel ids in `environment`, sorted (a stable order for listings and tests).
    public func channelIDs(bundleID: String, environment: APNsEnvironment.Kind) -> [String] {
        self.state.withLock { ($0[Key(environment: environment, bundleID: bundleID)] ?? [:]).keys.sorted() }
    }

    /// Channels per app (`<environment>/<bundle id>`), apps without channels left out.
    public func counts() -> [String: Int] {
        self.state.withLock { state in
            var counts: [String: Int] = [:]
            for (key, channels) in state where !channels.isEmpty {
                counts["\(key.environment.rawValue)/\(key.bundleID)"] = channels.count
            }
            return counts
        }
    }

    /// Whether `text` has the shape of a channel id: non-empty standard base64.
    public static func isWellFormed(_ text: String) -> Bool {
        guard !text.isEmpty, text.utf8.count <= 256, let data = Data(base64Encoded: text) else { return false }
        return !data.isEmpty
    }

    private static func newID() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64EncodedString()
    }
}
