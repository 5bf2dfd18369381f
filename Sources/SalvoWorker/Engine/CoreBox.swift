import NIOCore
import Synchronization

/// The dispatch core, set once it is made: the consumers' callbacks (revoke barrier, commit
/// reports) are created before it and find it here; until then they act as if it had no work.
final class CoreBox: Sendable {
    private let storage = Mutex<NIOLoopBound<WorkerCore<ContinuousClock>>?>(nil)

    var core: NIOLoopBound<WorkerCore<ContinuousClock>>? { storage.withLock { $0 } }

    func set(_ core: NIOLoopBound<WorkerCore<ContinuousClock>>) {
        storage.withLock { $0 = core }
    }
}
