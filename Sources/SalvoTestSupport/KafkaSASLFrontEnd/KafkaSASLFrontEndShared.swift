import Foundation
import NIOCore
import Synchronization

/// What every connection of one front end shares: the accounts, where the broker behind is,
/// the statistics and the open connections (closed by `stop()`). Connections live on their own
/// event loops, so this is the one place with a lock.
final class KafkaSASLFrontEndShared: Sendable {
    let accounts: KafkaSASLAccounts
    private let upstreamAddress: Mutex<(host: String, port: Int)?>
    private let statistics = Mutex(KafkaSASLFrontEnd.Statistics())
    private let channels = Mutex<[ObjectIdentifier: any Channel]>([:])

    init(accounts: KafkaSASLAccounts, upstream: (host: String, port: Int)?) {
        self.accounts = accounts
        self.upstreamAddress = Mutex(upstream)
    }

    /// `nil` until set: the authenticating test broker learns its broker's port after binding.
    var upstream: (host: String, port: Int)? {
        get { upstreamAddress.withLock { $0 } }
        set { upstreamAddress.withLock { $0 = newValue } }
    }

    var snapshot: KafkaSASLFrontEnd.Statistics { statistics.withLock { $0 } }

    func update(_ body: (inout KafkaSASLFrontEnd.Statistics) -> Void) {
        statistics.withLock { body(&$0) }
    }

    /// Tracks `channel` until it closes.
    func register(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        channels.withLock { $0[id] = channel }
        channel.closeFuture.whenComplete { [weak self] _ in
            _ = self?.channels.withLock { $0.removeValue(forKey: id) }
        }
    }

    var openChannels: [any Channel] { channels.withLock { Array($0.values) } }

    /// Parses `host:port` (the last colon splits, so `[::1]:9092` works too).
    static func parse(address: String) throws -> (host: String, port: Int) {
        guard let colon = address.lastIndex(of: ":"), let port = Int(address[address.index(after: colon)...]),
            (1...65_535).contains(port)
        else { throw TestFailure("upstream address must be host:port, got \(address.debugDescription)") }
        let host = address[..<colon].trimmingCharacters(in: ["[", "]"])
        return (host, port)
    }
}
