import NIOCore
import Synchronization

@testable import SalvoAPNs

/// A connection handed to a pool under test, answered by the test. Unchecked Sendable: only
/// touched on the test event loop (the pool's), inside `executeInContext` or the pool's calls.
final class FakeConnection: APNsPoolConnection, @unchecked Sendable {
    let id: APNsConnectionID
    var maxConcurrentStreams: Int
    weak var delegate: (any APNsPoolConnectionDelegate)?
    private(set) var pending: [(request: APNsRequest, tag: UInt64)] = []
    private(set) var submittedCount = 0
    private(set) var isRetired = false
    private(set) var isClosed = false

    init(id: APNsConnectionID, maxConcurrentStreams: Int, delegate: any APNsPoolConnectionDelegate) {
        self.id = id
        self.maxConcurrentStreams = maxConcurrentStreams
        self.delegate = delegate
    }

    func submit(_ request: UnsafePointer<APNsRequest>, deadline: NIODeadline, tag: UInt64) {
        self.submittedCount += 1
        self.pending.append((request.pointee, tag))
    }

    func retire() { self.isRetired = true }

    func close() {
        self.isClosed = true
        self.delegate?.connectionClosed(self.id, error: nil)
    }

    /// Answers the oldest request in flight.
    @discardableResult
    func answerFirst(_ result: APNsConnectionResult) -> APNsRequest {
        let (request, tag) = self.pending.removeFirst()
        self.delegate?.connection(self.id, completed: tag, with: result)
        return request
    }

    func answerAll(status: Int = 200) {
        while !self.pending.isEmpty { self.answerFirst(.response(APNsResponse(status: status))) }
    }

    /// The server sent new SETTINGS.
    func changeMaxConcurrentStreams(to value: Int) {
        self.maxConcurrentStreams = value
        self.delegate?.connection(self.id, maxConcurrentStreamsChanged: value)
    }

    /// The connection died: the pool hears of it first, then every request fails as a real
    /// connection's would.
    func die(error: APNsError = .connectionLost("test")) {
        self.isClosed = true
        self.delegate?.connectionClosed(self.id, error: error)
        let pending = self.pending
        self.pending.removeAll()
        for (_, tag) in pending {
            self.delegate?.connection(self.id, completed: tag, with: .failed(.notSent("connection closed")))
        }
    }
}

/// Hands out `FakeConnection`s when the test says so. Unchecked Sendable: only touched on the
/// test event loop.
final class FakeConnectionFactory: APNsPoolConnectionFactory, @unchecked Sendable {
    private var requests:
        [(
            id: APNsConnectionID, delegate: any APNsPoolConnectionDelegate,
            completion: (Result<any APNsPoolConnection, APNsError>) -> Void
        )] = []
    private(set) var connections: [FakeConnection] = []
    private(set) var attempts = 0

    var waitingConnects: Int { self.requests.count }

    func makeConnection(
        id: APNsConnectionID,
        delegate: any APNsPoolConnectionDelegate,
        completion: @escaping (Result<any APNsPoolConnection, APNsError>) -> Void
    ) {
        self.attempts += 1
        self.requests.append((id, delegate, completion))
    }

    /// Completes the oldest connect with a ready connection.
    @discardableResult
    func succeed(maxConcurrentStreams: Int) -> FakeConnection {
        let (id, delegate, completion) = self.requests.removeFirst()
        let connection = FakeConnection(id: id, maxConcurrentStreams: maxConcurrentStreams, delegate: delegate)
        self.connections.append(connection)
        completion(.success(connection))
        return connection
    }

    /// Fails the oldest connect.
    func fail(_ message: String = "connection refused") {
        let (_, _, completion) = self.requests.removeFirst()
        completion(.failure(.connectionFailed(message)))
    }
}

/// Outcomes delivered by a pool, by batch index, from any thread.
final class OutcomeRecorder: Sendable {
    private let outcomes = Mutex<[Int: APNsOutcome]>([:])

    func record(_ index: Int, _ outcome: APNsOutcome) {
        self.outcomes.withLock { $0[index] = outcome }
    }

    var count: Int { self.outcomes.withLock { $0.count } }
    subscript(index: Int) -> APNsOutcome? { self.outcomes.withLock { $0[index] } }
    var all: [Int: APNsOutcome] { self.outcomes.withLock { $0 } }
}
