import Synchronization

/// Identifies one HTTP/2 connection to ``APNsTokenProvider``, which remembers per connection when
/// it last switched tokens (Apple refuses a connection's token changing more than every 20 minutes).
public struct APNsConnectionID: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt64

    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    private static let counter = Atomic<UInt64>(0)

    /// A process-wide unique id (for pools that have no numbering of their own).
    public static func next() -> APNsConnectionID {
        APNsConnectionID(rawValue: counter.add(1, ordering: .relaxed).newValue)
    }

    public var description: String { "connection#\(rawValue)" }
}
