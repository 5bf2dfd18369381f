import Logging
import Metrics
import NIOCore
import SalvoHTTP2
import SalvoPrimitives

/// Runs one pool on its event loop: executes the ``APNsConnectionPool/StateMachine``'s actions
/// (connect, back off, retire), hands requests to connections, replays what was not sent, and
/// keeps the callers that found no stream credit waiting in a bounded queue.
///
/// Everything here runs on `eventLoop`; no locks. Outcomes are delivered on `eventLoop` too.
final class APNsPoolCore: APNsPoolConnectionDelegate {
    private let eventLoop: any EventLoop
    private let factory: any APNsPoolConnectionFactory
    private let configuration: APNsConnectionPool.Configuration
    private let metrics: APNsPoolMetrics
    private let logger: Logger
    private let random: @Sendable () -> Double
    private let requestTimeout: TimeAmount
    private let queueTimeout: TimeAmount

    private(set) var stateMachine: APNsConnectionPool.StateMachine
    /// The open connections (a handful: a linear search beats hashing).
    private var connections: [any APNsPoolConnection] = []
    /// Requests in flight, by the tag their connection reports them back with.
    private var inFlightRequests = SlotTable<APNsPendingRequest>()
    private var queue: APNsPoolQueue
    private var isStarted = false
    private var isDrainingQueue = false
    var inFlight: Int { self.inFlightRequests.count }
    var queuedCount: Int { self.queue.count }
    private var reconnectTimers: [Int: Scheduled<Void>] = [:]
    private var queueTimer: Scheduled<Void>?
    /// When the queue last moved (or filled): it times out after `queueTimeout` without progress.
    private var queueProgress = NIODeadline.uptimeNanoseconds(0)
    private(set) var lastConnectError: APNsError?
    private var shutdownPromises: [EventLoopPromise<Void>] = []

    init(
        factory: any APNsPoolConnectionFactory,
        configuration: APNsConnectionPool.Configuration,
        eventLoop: any EventLoop,
        metrics: APNsPoolMetrics,
        logger: Logger,
        random: @escaping @Sendable () -> Double
    ) {
        self.factory = factory
        self.configuration = configuration
        self.eventLoop = eventLoop
        self.metrics = metrics
        self.logger = logger
        self.random = random
        self.requestTimeout = TimeAmount(configuration.connection.requestTimeout)
        self.queueTimeout = TimeAmount(configuration.queueTimeout)
        self.stateMachine = APNsConnectionPool.StateMachine(
            connectionCount: configuration.connectionCount,
            maximumStreamsPerConnection: configuration.maximumStreamsPerConnection,
            backoff: configuration.backoff
        )
        self.queue = APNsPoolQueue(maximumWaitingCallers: configuration.maximumWaitingCallers)
    }

    /// Opens the connections (done by the first submission otherwise).
    func start() {
        guard !self.isStarted else { return }
        self.isStarted = true
        for slot in self.stateMachine.start() { self.openConnection(slot: slot) }
        self.updateConnectionGauges()
    }

    // MARK: Submitting

    /// Sends what current credit allows at once; queues the rest behind earlier callers and
    /// resumes `admitted` once every request left (at once when all fit).
    func submit(_ requests: [APNsRequest], sink: APNsOutcomeSink, admitted: CheckedContinuation<Void, Never>?) {
        self.start()
        let submission = APNsPoolSubmission(requests: requests, sink: sink, admitted: admitted)
        guard self.stateMachine.lifecycle == .running else {
            self.refuse(submission, reason: "the pool is shut down")
            return
        }
        // Callers already waiting go first: only an empty queue lets new requests straight through.
        if self.queue.isEmpty {
            let deadline = self.eventLoop.now + self.requestTimeout
            while submission.remaining > 0, case .use(let id) = self.stateMachine.leaseStream() {
                self.dispatch(submission.take(), to: id, deadline: deadline)
            }
        }
        guard submission.remaining > 0 else {
            admitted?.resume()
            return
        }
        guard self.queue.hasRoomForCaller else {
            self.refuse(
                submission, reason: "\(self.configuration.maximumWaitingCallers) callers already wait for stream credit"
            )
            return
        }
        if self.queue.isEmpty { self.queueProgress = self.eventLoop.now }
        self.queue.append(submission)
        self.metrics.queued.record(self.queue.count)
        self.armQueueTimer()
    }

    /// Fails what is left of `submission` as not sent and resumes its caller.
    private func refuse(_ submission: APNsPoolSubmission, reason: String) {
        while submission.remaining > 0 {
            self.metrics.requestFailed(.notSent)
            submission.take().deliver(.failed(.notSent(reason)))
        }
        submission.admitted?.resume()
    }

    /// - Parameter deadline: the answer's; computed once per round by the caller (reading the
    ///   clock per request was a measurable share of a request's cost).
    private func dispatch(_ pending: APNsPendingRequest, to id: APNsConnectionID, deadline: NIODeadline) {
        guard let connection = self.connection(id) else {
            // The state machine only leases connections this table holds.
            preconditionFailure("leased \(id), which the pool does not hold")
        }
        var pending = pending
        pending.sentAt = deadline - self.requestTimeout
        let tag = UInt64(self.inFlightRequests.insert(pending))
        // Borrowed in place from the caller's array, which `pending.submission` keeps alive:
        // `pending.request` would copy it (a retain per array and buffer it holds).
        pending.submission.requests.withUnsafeBufferPointer { requests in
            connection.submit(requests.baseAddress! + pending.index, deadline: deadline, tag: tag)
        }
    }

    private func connection(_ id: APNsConnectionID) -> (any APNsPoolConnection)? {
        for connection in self.connections where connection.id == id { return connection }
        return nil
    }

    private func completed(_ pending: APNsPendingRequest, _ result: APNsConnectionResult, on id: APNsConnectionID) {
        self.metrics.inFlight.record(self.inFlight)
        switch result {
        case .response(let response):
            self.stateMachine.streamFinished(id, answered: true)
            self.answered(pending, response)
            let outcome: APNsOutcome =
                response.isAccepted
                ? .accepted(apnsID: response.apnsID, uniqueID: response.apnsUniqueID) : .rejected(response)
            pending.deliver(outcome)
        case .expiredProviderToken(let response, let action):
            self.stateMachine.streamFinished(id, answered: true)
            self.answered(pending, response)
            if pending.replayedWithRefreshedToken {
                pending.deliver(.rejected(response))
            } else {
                var replay = pending
                replay.replayedWithRefreshedToken = true
                // The connection may not switch tokens yet: a new connection starts with the
                // refreshed one.
                if action == .replayOnNewConnection { self.retire(id) }
                self.replay(replay)
            }
        case .failed(let error):
            self.stateMachine.streamFinished(id, answered: false)
            if error.code == .notSent, pending.replays < self.configuration.maximumReplays {
                var replay = pending
                replay.replays += 1
                self.metrics.replays.increment()
                self.replay(replay)
            } else {
                self.metrics.requestFailed(error.code)
                // Not sent: it never reached APNs, so it has no round trip to measure.
                if error.code != .notSent { self.measure(pending, .none) }
                pending.deliver(.failed(error))
            }
        }
        if !self.queue.isEmpty { self.drainQueue() }
    }

    private func answered(_ pending: APNsPendingRequest, _ response: APNsResponse) {
        self.metrics.responseReceived(response)
        self.measure(pending, APNsStatusClass(status: response.status))
    }

    /// The one clock reading per request: its send time reuses its dispatch round's.
    private func measure(_ pending: APNsPendingRequest, _ statusClass: APNsStatusClass) {
        let elapsed = self.eventLoop.now - pending.sentAt
        self.metrics.requestFinished(statusClass, nanoseconds: elapsed.nanoseconds)
    }

    /// Replays go out at once when credit allows, else ahead of every waiting caller.
    private func replay(_ pending: APNsPendingRequest) {
        switch self.stateMachine.leaseStream() {
        case .use(let id):
            self.dispatch(pending, to: id, deadline: self.eventLoop.now + self.requestTimeout)
        case .wait:
            if self.queue.isEmpty { self.queueProgress = self.eventLoop.now }
            self.queue.appendReplay(pending)
            self.metrics.queued.record(self.queue.count)
            self.armQueueTimer()
        case .refuse:
            self.metrics.requestFailed(.notSent)
            pending.deliver(.failed(.notSent("the pool shut down before the replay")))
        }
    }

    /// Hands queued requests to connections while credit lasts. Not re-entrant: a dispatch that
    /// fails at once completes inside this loop and must not start a second one.
    private func drainQueue() {
        guard !self.isDrainingQueue else { return }
        self.isDrainingQueue = true
        defer { self.isDrainingQueue = false }
        var now: NIODeadline?
        while !self.queue.isEmpty, case .use(let id) = self.stateMachine.leaseStream() {
            guard let (pending, finished) = self.queue.popFirst() else { break }
            let roundStart = now ?? self.eventLoop.now
            now = roundStart
            self.dispatch(pending, to: id, deadline: roundStart + self.requestTimeout)
            finished?.admitted?.resume()
        }
        if let now {
            self.queueProgress = now
            self.metrics.queued.record(self.queue.count)
        }
    }

    // MARK: Queue timeout

    private func armQueueTimer() {
        guard self.queueTimer == nil else { return }
        self.queueTimer = self.eventLoop.assumeIsolated().scheduleTask(deadline: self.queueProgress + self.queueTimeout)
        {
            self.queueTimer = nil
            self.queueTimerFired()
        }
    }

    private func queueTimerFired() {
        guard !self.queue.isEmpty else { return }
        guard self.eventLoop.now >= self.queueProgress + self.queueTimeout else {
            self.armQueueTimer()
            return
        }
        let cause = self.lastConnectError.map { ": last connection error: \($0.message)" } ?? ""
        self.failQueued(reason: "no stream credit became free within \(self.configuration.queueTimeout)\(cause)")
    }

    private func failQueued(reason: String) {
        let (requests, submissions) = self.queue.removeAll()
        self.metrics.queued.record(0)
        for pending in requests {
            self.metrics.requestFailed(.notSent)
            pending.deliver(.failed(.notSent(reason)))
        }
        for submission in submissions { submission.admitted?.resume() }
    }

    // MARK: Connections

    private func openConnection(slot: Int) {
        let id = APNsConnectionID.next()
        self.factory.makeConnection(id: id, delegate: self) { result in
            self.connectFinished(slot: slot, result)
        }
    }

    private func connectFinished(slot: Int, _ result: Result<any APNsPoolConnection, APNsError>) {
        switch result {
        case .success(let connection):
            self.connections.append(connection)
            let action = self.stateMachine.connectSucceeded(
                slot: slot, id: connection.id, maxConcurrentStreams: connection.maxConcurrentStreams)
            self.run(action)
        case .failure(let error):
            self.lastConnectError = error
            self.metrics.connectFailures.increment()
            self.logger.warning("APNs connection failed", metadata: ["slot": "\(slot)", "error": "\(error.message)"])
            self.run(self.stateMachine.connectFailed(slot: slot, random: self.random()))
        }
    }

    private func retire(_ id: APNsConnectionID) {
        let action = self.stateMachine.drain(id)
        self.connection(id)?.retire()
        self.run(action)
    }

    private func run(_ action: APNsConnectionPool.StateMachine.Action) {
        switch action {
        case .none:
            break
        case .connect(let slot):
            self.openConnection(slot: slot)
        case .scheduleReconnect(let slot, let delay):
            self.reconnectTimers[slot] = self.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(delay)) {
                self.reconnectTimers[slot] = nil
                let action = self.stateMachine.reconnectTimerFired(slot: slot)
                if case .connect = action { self.metrics.reconnects.increment() }
                self.run(action)
            }
        case .creditAvailable:
            self.drainQueue()
        case .close(let id):
            self.connection(id)?.close()
        case .shutdownComplete:
            self.queueTimer?.cancel()
            self.queueTimer = nil
            let promises = self.shutdownPromises
            self.shutdownPromises.removeAll()
            for promise in promises { promise.succeed() }
        }
        self.updateConnectionGauges()
    }

    private func updateConnectionGauges() {
        self.metrics.connectionsReady.record(self.stateMachine.readyCount)
        self.metrics.connectionsDraining.record(self.stateMachine.drainingCount)
        self.metrics.connectionsConnecting.record(self.stateMachine.connectingCount)
        self.metrics.connectionsBackingOff.record(self.stateMachine.backingOffCount)
        self.metrics.streamCredit.record(self.stateMachine.streamCredit)
    }

    // MARK: APNsPoolConnectionDelegate

    func connection(_ id: APNsConnectionID, completed tag: UInt64, with result: APNsConnectionResult) {
        guard let pending = self.inFlightRequests.remove(Int(tag)) else { return }
        self.completed(pending, result, on: id)
    }

    func connection(_ id: APNsConnectionID, maxConcurrentStreamsChanged value: Int) {
        self.logger.debug(
            "APNs stream limit changed",
            metadata: ["connection": "\(id.rawValue)", "max-concurrent-streams": "\(value)"])
        self.run(self.stateMachine.maxConcurrentStreamsChanged(id, to: value))
    }

    func connectionDraining(_ id: APNsConnectionID) {
        self.run(self.stateMachine.drain(id))
    }

    func connectionClosed(_ id: APNsConnectionID, error: APNsError?) {
        self.connections.removeAll { $0.id == id }
        if let error {
            self.logger.info(
                "APNs connection closed", metadata: ["connection": "\(id.rawValue)", "error": "\(error.message)"])
        }
        self.run(self.stateMachine.connectionClosed(id, random: self.random()))
    }

    // MARK: Shutdown

    /// Refuses new work, fails what waits for credit, retires every connection, and completes
    /// `promise` once the requests in flight ended and the last connection closed.
    func shutdown(promise: EventLoopPromise<Void>) {
        self.shutdownPromises.append(promise)
        switch self.stateMachine.lifecycle {
        case .running: break
        case .shuttingDown: return
        case .shutDown: return self.run(.shutdownComplete)
        }
        let action = self.stateMachine.shutdown()
        for (_, timer) in self.reconnectTimers { timer.cancel() }
        self.reconnectTimers.removeAll()
        self.failQueued(reason: "the pool is shutting down")
        for id in action.retire { self.connection(id)?.retire() }
        self.run(action.isComplete ? .shutdownComplete : .none)
    }
}
