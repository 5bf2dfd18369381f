import SalvoKafka
import SalvoMockAPNs
import SalvoWorker
import Synchronization

/// Ends a worker's start at one step (``WorkerEngine/StartStepFinished``), by a failure or by
/// cancelling the start, after taking what was running there: the live Kafka clients under the
/// worker's client id and the mock's open APNs connections. With those, a test shows both that
/// the step had started something and that it was all stopped afterwards.
final class StartStepProbe: Sendable {
    enum Ending: String, CaseIterable, Sendable {
        /// The step throws ``Injected``.
        case failure
        /// The task running the start is cancelled, as a worker told to stop is.
        case cancellation
    }

    struct Injected: Error, Equatable {
        var step: WorkerStartStep
    }

    /// What was running when the start was ended.
    struct Running: Sendable, CustomStringConvertible {
        var kafkaClients: Int
        var apnsConnections: Int
        var description: String { "\(kafkaClients) Kafka clients, \(apnsConnections) APNs connections" }
    }

    let step: WorkerStartStep
    let ending: Ending
    private let clientID: String
    private let mock: MockAPNsServer
    private let seen = Mutex<Running?>(nil)

    init(step: WorkerStartStep, ending: Ending, clientID: String, mock: MockAPNsServer) {
        self.step = step
        self.ending = ending
        self.clientID = clientID
        self.mock = mock
    }

    /// Whether the step comes at or after the pools' start: the mock then sees their connections.
    var poolsStarted: Bool {
        let steps = WorkerStartStep.allCases
        return steps.firstIndex(of: step)! >= steps.firstIndex(of: .pools)!
    }

    /// What was running at the step, once the start reached it.
    var running: Running? { seen.withLock { $0 } }

    var now: Running {
        Running(
            kafkaClients: KafkaClientHandles.live(clientIDPrefix: clientID),
            apnsConnections: mock.stats().connectionsOpen)
    }

    func finished(_ finished: WorkerStartStep) async throws {
        guard finished == step else { return }
        // The pools connect on their own once started: wait until the mock sees them, so that
        // their closing is seen too.
        if poolsStarted {
            let deadline = ContinuousClock.now + .seconds(5)
            while mock.stats().connectionsOpen == 0, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        let running = now
        seen.withLock { $0 = running }
        switch ending {
        case .failure: throw Injected(step: step)
        case .cancellation: withUnsafeCurrentTask { $0?.cancel() }
        }
    }

    /// Polls until no Kafka client and no APNs connection is left (closing ends on other threads
    /// and on the mock's side a moment later), or `timeout` passed; returns what is left.
    func waitUntilNothingRuns(timeout: Duration) async throws -> Running {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let left = now
            if left.kafkaClients == 0, left.apnsConnections == 0 { return left }
            try await Task.sleep(for: .milliseconds(20))
        }
        return now
    }
}
