/// What APNs keeps for devices offline when a broadcast arrives (`message-storage-policy`, fixed
/// when the channel is created). With ``noStorage`` a broadcast must carry `apns-expiration: 0`.
public enum APNsChannelStoragePolicy: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Nothing is stored: devices not reachable now miss the update.
    case noStorage = 0
    /// The most recent message is stored until it expires.
    case mostRecentMessage = 1

    /// Accepts the number (`0`, `1`) and the command-line words `no-storage`, `most-recent`.
    public init?(argument: String) {
        switch argument {
        case "0", "no-storage": self = .noStorage
        case "1", "most-recent": self = .mostRecentMessage
        default: return nil
        }
    }

    public var description: String { self == .noStorage ? "no-storage (0)" : "most-recent (1)" }
}
