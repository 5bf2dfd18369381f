import Testing

@testable import SalvoAPNs

@Suite("APNsConnectionPool.StateMachine")
struct APNsConnectionPoolStateMachineTests {
    typealias Machine = APNsConnectionPool.StateMachine

    private let a = APNsConnectionID(rawValue: 1)
    private let b = APNsConnectionID(rawValue: 2)
    private let c = APNsConnectionID(rawValue: 3)

    private func backoff() -> APNsBackoff {
        var backoff = APNsBackoff()
        backoff.initial = .milliseconds(100)
        backoff.maximum = .seconds(10)
        backoff.jitter = 0
        return backoff
    }

    private func machine(connections: Int = 2, cap: Int = 1000) -> Machine {
        Machine(connectionCount: connections, maximumStreamsPerConnection: cap, backoff: self.backoff())
    }

    /// Two ready connections `a` (slot 0) and `b` (slot 1).
    private func twoReady(streams: Int = 2) -> Machine {
        var machine = self.machine()
        #expect(machine.start() == [0, 1])
        #expect(machine.connectSucceeded(slot: 0, id: self.a, maxConcurrentStreams: streams) == .creditAvailable)
        #expect(machine.connectSucceeded(slot: 1, id: self.b, maxConcurrentStreams: streams) == .creditAvailable)
        return machine
    }

    @Test("start connects every slot once")
    func start() {
        var machine = self.machine(connections: 3)
        #expect(machine.start() == [0, 1, 2])
        #expect(machine.start() == [])
        #expect(machine.connectingCount == 3)
    }

    @Test("requests go to the connection with the most free credit, and wait when none is left")
    func leastLoaded() {
        var machine = self.twoReady(streams: 2)
        #expect(machine.leaseStream() == .use(self.a))
        #expect(machine.leaseStream() == .use(self.b))
        #expect(machine.leaseStream() == .use(self.a))
        #expect(machine.leaseStream() == .use(self.b))
        #expect(machine.leaseStream() == .wait)
        machine.streamFinished(self.b, answered: true)
        #expect(machine.leaseStream() == .use(self.b))
    }

    @Test("a connection advertising more credit takes more requests")
    func unevenCredit() {
        var machine = self.machine()
        _ = machine.start()
        _ = machine.connectSucceeded(slot: 0, id: self.a, maxConcurrentStreams: 1)
        _ = machine.connectSucceeded(slot: 1, id: self.b, maxConcurrentStreams: 3)
        var leases: [APNsConnectionPool.StateMachine.LeaseAction] = []
        for _ in 0..<5 { leases.append(machine.leaseStream()) }
        #expect(leases.filter { $0 == .use(self.b) }.count == 3)
        #expect(leases.filter { $0 == .use(self.a) }.count == 1)
        #expect(leases.last == .wait)
    }

    @Test("the server's MAX_CONCURRENT_STREAMS is capped by the configuration")
    func cap() {
        var machine = self.machine(connections: 1, cap: 2)
        _ = machine.start()
        _ = machine.connectSucceeded(slot: 0, id: self.a, maxConcurrentStreams: 1000)
        #expect(machine.freeCredit == 2)
    }

    @Test("SETTINGS lowering the limit to 1 holds requests until in-flight drops below it")
    func settingsLowered() {
        var machine = self.machine(connections: 1)
        _ = machine.start()
        _ = machine.connectSucceeded(slot: 0, id: self.a, maxConcurrentStreams: 3)
        #expect(machine.leaseStream() == .use(self.a))
        #expect(machine.leaseStream() == .use(self.a))
        #expect(machine.maxConcurrentStreamsChanged(self.a, to: 1) == .none)
        #expect(machine.leaseStream() == .wait)
        machine.streamFinished(self.a, answered: true)
        #expect(machine.leaseStream() == .wait)
        machine.streamFinished(self.a, answered: true)
        #expect(machine.leaseStream() == .use(self.a))
        #expect(machine.leaseStream() == .wait)
        #expect(machine.maxConcurrentStreamsChanged(self.a, to: 5) == .creditAvailable)
        #expect(machine.freeCredit == 4)
    }

    @Test("GOAWAY drains a connection out of its slot and refills the slot at once")
    func goAway() {
        var machine = self.twoReady(streams: 10)
        #expect(machine.leaseStream() == .use(self.a))
        #expect(machine.drain(self.a) == .connect(slot: 0))
        #expect(machine.drain(self.a) == .none)
        #expect(machine.drainingCount == 1)
        // Nothing new goes to the draining connection.
        for _ in 0..<10 { #expect(machine.leaseStream() == .use(self.b)) }
        #expect(machine.leaseStream() == .wait)
        #expect(machine.connectSucceeded(slot: 0, id: self.c, maxConcurrentStreams: 10) == .creditAvailable)
        #expect(machine.leaseStream() == .use(self.c))
        // The drained connection's close is expected: no reconnect for it.
        machine.streamFinished(self.a, answered: true)
        #expect(machine.connectionClosed(self.a, random: 0) == .none)
        #expect(machine.readyCount == 2)
    }

    @Test("failed connects back off exponentially; an answered request resets the count")
    func backoffGrowth() {
        var machine = self.machine(connections: 1)
        _ = machine.start()
        #expect(machine.connectFailed(slot: 0, random: 0) == .scheduleReconnect(slot: 0, after: .milliseconds(100)))
        #expect(machine.backingOffCount == 1)
        #expect(machine.leaseStream() == .wait)
        #expect(machine.reconnectTimerFired(slot: 0) == .connect(slot: 0))
        #expect(machine.connectFailed(slot: 0, random: 0) == .scheduleReconnect(slot: 0, after: .milliseconds(200)))
        _ = machine.reconnectTimerFired(slot: 0)
        _ = machine.connectSucceeded(slot: 0, id: self.a, maxConcurrentStreams: 1)
        // Closed before answering anything: still failing.
        #expect(machine.connectionClosed(self.a, random: 0) == .scheduleReconnect(slot: 0, after: .milliseconds(400)))
        _ = machine.reconnectTimerFired(slot: 0)
        _ = machine.connectSucceeded(slot: 0, id: self.b, maxConcurrentStreams: 1)
        #expect(machine.leaseStream() == .use(self.b))
        machine.streamFinished(self.b, answered: true)
        #expect(machine.connectionClosed(self.b, random: 0) == .scheduleReconnect(slot: 0, after: .milliseconds(100)))
    }

    @Test("a stale reconnect timer does nothing")
    func staleTimer() {
        var machine = self.machine(connections: 1)
        _ = machine.start()
        #expect(machine.reconnectTimerFired(slot: 0) == .none)
    }

    @Test("shutdown retires every connection and completes when the last one closed")
    func shutdown() {
        var machine = self.twoReady()
        let action = machine.shutdown()
        #expect(action.retire == [self.a, self.b])
        #expect(!action.isComplete)
        #expect(machine.leaseStream() == .refuse)
        #expect(machine.connectionClosed(self.a, random: 0) == .none)
        #expect(machine.connectionClosed(self.b, random: 0) == .shutdownComplete)
        #expect(machine.lifecycle == .shutDown)
        #expect(machine.start() == [])
    }

    @Test("shutdown waits for connects in progress and closes what they bring")
    func shutdownWhileConnecting() {
        var machine = self.machine()
        _ = machine.start()
        #expect(machine.connectFailed(slot: 1, random: 0) == .scheduleReconnect(slot: 1, after: .milliseconds(100)))
        let action = machine.shutdown()
        #expect(action.retire.isEmpty)
        #expect(!action.isComplete)
        #expect(machine.reconnectTimerFired(slot: 1) == .none)
        #expect(machine.connectSucceeded(slot: 0, id: self.a, maxConcurrentStreams: 5) == .close(self.a))
        #expect(machine.connectionClosed(self.a, random: 0) == .shutdownComplete)
    }

    @Test("shutdown of a pool with nothing open completes at once")
    func shutdownIdle() {
        var machine = self.machine()
        #expect(machine.shutdown().isComplete)
        #expect(machine.shutdown() == .init(retire: [], isComplete: false))
    }
}
