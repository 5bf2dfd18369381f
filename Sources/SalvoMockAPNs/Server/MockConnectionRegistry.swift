import NIOCore
import Synchronization

/// The open APNs connections, so operator controls (GOAWAY now, close now) reach all of them and
/// shutdown can wait for them. Connections add themselves when initialised and leave on close.
final class MockConnectionRegistry: Sendable {
    private let channels = Mutex<[ObjectIdentifier: any Channel]>([:])

    func add(_ channel: any Channel) {
        let key = ObjectIdentifier(channel)
        self.channels.withLock { $0[key] = channel }
        channel.closeFuture.whenComplete { _ in
            self.channels.withLock { _ = $0.removeValue(forKey: key) }
        }
    }

    var all: [any Channel] { self.channels.withLock { Array($0.values) } }

    var count: Int { self.channels.withLock { $0.count } }
}
