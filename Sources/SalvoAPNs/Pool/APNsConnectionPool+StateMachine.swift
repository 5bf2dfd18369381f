extension APNsConnectionPool {
    /// The pool's connections and their stream credit, free of NIO so it can be tested alone.
    ///
    /// The pool keeps ``Configuration/connectionCount`` slots filled. A slot is connecting,
    /// ready with one connection, or backing off after a failure. A connection that receives
    /// GOAWAY (or that the pool retires) leaves its slot, which is refilled at once, and drains on
    /// the side until it closes. Requests go to the ready connection with the most free credit;
    /// credit is the server's current SETTINGS_MAX_CONCURRENT_STREAMS (capped by
    /// ``Configuration/maximumStreamsPerConnection``) minus the requests in flight on it, so a
    /// server that lowers its limit to 1 gets one request at a time.
    struct StateMachine: Sendable {
        enum Slot: Sendable, Equatable {
            case idle
            case connecting
            case ready(APNsConnectionID)
            case backingOff
        }

        struct Connection: Sendable, Equatable {
            let id: APNsConnectionID
            /// Nil once draining: it serves its requests in flight and takes no new ones.
            var slot: Int?
            var maxConcurrentStreams: Int
            var inFlight = 0
            /// An answer arrived on it: the slot's failure count starts over.
            var hasAnswered = false

            var freeCredit: Int { self.slot == nil ? 0 : max(0, self.maxConcurrentStreams - self.inFlight) }
        }

        enum Lifecycle: Sendable, Equatable {
            case running
            case shuttingDown
            case shutDown
        }

        enum Action: Sendable, Equatable {
            case none
            /// Open a connection for the slot.
            case connect(slot: Int)
            /// Open a connection for the slot after the delay.
            case scheduleReconnect(slot: Int, after: Duration)
            /// Credit became available: hand queued requests out.
            case creditAvailable
            /// A connection became ready during shutdown: close it.
            case close(APNsConnectionID)
            /// The last connection closed after `shutdown()`.
            case shutdownComplete
        }

        enum LeaseAction: Sendable, Equatable {
            /// Send on this connection (its in-flight count already includes the request).
            case use(APNsConnectionID)
            /// No free credit now: queue the request.
            case wait
            /// The pool is shutting down: the request is not sent.
            case refuse
        }

        struct ShutdownAction: Sendable, Equatable {
            /// Connections to retire gracefully (GOAWAY, finish in flight, close).
            var retire: [APNsConnectionID]
            var isComplete: Bool
        }

        private(set) var slots: [Slot]
        private(set) var connections: [Connection] = []
        private(set) var lifecycle = Lifecycle.running
        /// Consecutive failures per slot, for the backoff.
        private var failures: [Int]
        private let maximumStreamsPerConnection: Int
        private let backoff: APNsBackoff

        init(connectionCount: Int, maximumStreamsPerConnection: Int, backoff: APNsBackoff) {
            self.slots = Array(repeating: .idle, count: connectionCount)
            self.failures = Array(repeating: 0, count: connectionCount)
            self.maximumStreamsPerConnection = maximumStreamsPerConnection
            self.backoff = backoff
        }

        // MARK: Connection lifecycle

        /// Starts filling the idle slots; returns those to connect.
        mutating func start() -> [Int] {
            guard self.lifecycle == .running else { return [] }
            var started: [Int] = []
            for slot in self.slots.indices where self.slots[slot] == .idle {
                self.slots[slot] = .connecting
                started.append(slot)
            }
            return started
        }

        mutating func connectSucceeded(slot: Int, id: APNsConnectionID, maxConcurrentStreams: Int) -> Action {
            let limit = min(maxConcurrentStreams, self.maximumStreamsPerConnection)
            guard self.lifecycle == .running else {
                self.slots[slot] = .idle
                self.connections.append(Connection(id: id, slot: nil, maxConcurrentStreams: limit))
                return .close(id)
            }
            self.slots[slot] = .ready(id)
            self.connections.append(Connection(id: id, slot: slot, maxConcurrentStreams: limit))
            return limit > 0 ? .creditAvailable : .none
        }

        /// `random` in 0…1 picks the jittered delay.
        mutating func connectFailed(slot: Int, random: Double) -> Action {
            guard self.lifecycle == .running else {
                self.slots[slot] = .idle
                return self.completeShutdownIfDone()
            }
            self.slots[slot] = .backingOff
            let delay = self.backoff.delay(attempt: self.failures[slot], random: random)
            self.failures[slot] += 1
            return .scheduleReconnect(slot: slot, after: delay)
        }

        mutating func reconnectTimerFired(slot: Int) -> Action {
            guard self.lifecycle == .running, self.slots[slot] == .backingOff else { return .none }
            self.slots[slot] = .connecting
            return .connect(slot: slot)
        }

        /// GOAWAY received, or the pool retires the connection (an expired provider token): no
        /// new requests go to it, and its slot is refilled at once.
        mutating func drain(_ id: APNsConnectionID) -> Action {
            guard let index = self.index(of: id), let slot = self.connections[index].slot else { return .none }
            self.connections[index].slot = nil
            guard self.lifecycle == .running else {
                self.slots[slot] = .idle
                return .none
            }
            self.slots[slot] = .connecting
            return .connect(slot: slot)
        }

        mutating func connectionClosed(_ id: APNsConnectionID, random: Double) -> Action {
            guard let index = self.index(of: id) else { return .none }
            let connection = self.connections.remove(at: index)
            guard let slot = connection.slot else { return self.completeShutdownIfDone() }
            guard self.lifecycle == .running else {
                self.slots[slot] = .idle
                return self.completeShutdownIfDone()
            }
            // A connection that served requests starts the count over; one that died before
            // answering anything counts as another failure (a server that accepts and drops).
            if connection.hasAnswered { self.failures[slot] = 0 }
            self.slots[slot] = .backingOff
            let delay = self.backoff.delay(attempt: self.failures[slot], random: random)
            self.failures[slot] += 1
            return .scheduleReconnect(slot: slot, after: delay)
        }

        mutating func maxConcurrentStreamsChanged(_ id: APNsConnectionID, to value: Int) -> Action {
            guard let index = self.index(of: id) else { return .none }
            let before = self.connections[index].freeCredit
            self.connections[index].maxConcurrentStreams = min(value, self.maximumStreamsPerConnection)
            return self.connections[index].freeCredit > before ? .creditAvailable : .none
        }

        // MARK: Requests

        /// Picks the ready connection with the most free credit and counts the request on it.
        mutating func leaseStream() -> LeaseAction {
            guard self.lifecycle == .running else { return .refuse }
            var best = -1
            var bestCredit = 0
            for index in self.connections.indices {
                let credit = self.connections[index].freeCredit
                if credit > bestCredit {
                    best = index
                    bestCredit = credit
                }
            }
            guard best >= 0 else { return .wait }
            self.connections[best].inFlight += 1
            return .use(self.connections[best].id)
        }

        /// A leased request ended; `answered` when APNs sent a response.
        mutating func streamFinished(_ id: APNsConnectionID, answered: Bool) {
            guard let index = self.index(of: id) else { return }
            self.connections[index].inFlight -= 1
            if answered, !self.connections[index].hasAnswered {
                self.connections[index].hasAnswered = true
                if let slot = self.connections[index].slot { self.failures[slot] = 0 }
            }
        }

        // MARK: Shutdown

        /// Stops leasing; ready connections are retired, backing-off slots stop.
        mutating func shutdown() -> ShutdownAction {
            guard self.lifecycle == .running else { return ShutdownAction(retire: [], isComplete: false) }
            self.lifecycle = .shuttingDown
            var retire: [APNsConnectionID] = []
            for index in self.connections.indices {
                if let slot = self.connections[index].slot {
                    self.slots[slot] = .idle
                    self.connections[index].slot = nil
                }
                retire.append(self.connections[index].id)
            }
            for slot in self.slots.indices where self.slots[slot] == .backingOff {
                self.slots[slot] = .idle
            }
            return ShutdownAction(retire: retire, isComplete: self.completeShutdownIfDone() == .shutdownComplete)
        }

        // MARK: Facts

        /// Requests that may be sent now without waiting.
        var freeCredit: Int { self.connections.reduce(0) { $0 + $1.freeCredit } }
        /// The sum of the ready connections' stream limits.
        var streamCredit: Int { self.connections.reduce(0) { $0 + ($1.slot == nil ? 0 : $1.maxConcurrentStreams) } }
        var readyCount: Int { self.connections.count { $0.slot != nil } }
        var drainingCount: Int { self.connections.count { $0.slot == nil } }
        var connectingCount: Int { self.slots.count { $0 == .connecting } }
        var backingOffCount: Int { self.slots.count { $0 == .backingOff } }

        private func index(of id: APNsConnectionID) -> Int? {
            self.connections.firstIndex { $0.id == id }
        }

        private mutating func completeShutdownIfDone() -> Action {
            guard self.lifecycle == .shuttingDown, self.connections.isEmpty, !self.slots.contains(.connecting) else {
                return .none
            }
            self.lifecycle = .shutDown
            return .shutdownComplete
        }
    }
}
