import NIOCore
import NIOEmbedded
import Testing

@testable import SalvoAPNs

/// The pool's driver against fake connections (Pushy's `ApnsChannelPoolTest` style), with time
/// moved by the test.
@Suite("APNsConnectionPool with fake connections")
struct APNsConnectionPoolTests {
    @Test("a batch beyond the stream credit waits: in flight never exceeds credit, order is kept")
    func boundedInFlight() async throws {
        let harness = PoolHarness()
        defer { Task { await harness.shutdown() } }
        let connection = try await harness.ready(maxConcurrentStreams: 2)[0]
        let outcomes = OutcomeRecorder()
        let admitted = Flag()
        let pool = harness.pool
        let sender = Task {
            await pool.send(PoolHarness.requests(5)) { outcomes.record($0, $1) }
            admitted.set()
        }
        try await harness.eventually("two requests in flight") { connection.pending.count == 2 }
        #expect(!admitted.isSet)
        var order: [Int] = []
        for expectedInFlight in [2, 2, 2, 1, 0] {
            let answered = try await harness.onLoop {
                let request = connection.answerFirst(.response(APNsResponse(status: 200)))
                return (PoolHarness.number(of: request), connection.pending.count)
            }
            order.append(answered.0)
            #expect(answered.1 == expectedInFlight)
        }
        await sender.value
        #expect(admitted.isSet)
        #expect(order == [0, 1, 2, 3, 4])
        #expect(outcomes.count == 5)
        #expect(outcomes.all.values.allSatisfy { $0.isAccepted })
    }

    @Test("single senders waiting for credit are served first come, first served")
    func fifo() async throws {
        let harness = PoolHarness()
        defer { Task { await harness.shutdown() } }
        let connection = try await harness.ready(maxConcurrentStreams: 1)[0]
        let pool = harness.pool
        var senders: [Task<APNsOutcome, Never>] = []
        for number in 0..<3 {
            senders.append(Task { await pool.send(PoolHarness.request(number)) })
            // Each sender reaches the pool before the next starts.
            if number == 0 {
                try await harness.eventually("first in flight") { connection.pending.count == 1 }
            } else {
                try await harness.waitUntilQueued(number)
            }
        }
        var order: [Int] = []
        for _ in 0..<3 {
            try await harness.eventually("a request in flight") { connection.pending.count == 1 }
            order.append(
                try await harness.onLoop {
                    PoolHarness.number(of: connection.answerFirst(.response(APNsResponse(status: 200))))
                })
        }
        #expect(order == [0, 1, 2])
        for sender in senders { #expect(await sender.value.isAccepted) }
    }

    @Test("requests not sent on a dying connection are replayed on another one")
    func replayOnOtherConnection() async throws {
        let harness = PoolHarness(connections: 2)
        defer { Task { await harness.shutdown() } }
        let connections = try await harness.ready(maxConcurrentStreams: 10, 10)
        let pool = harness.pool
        let sender = Task { await pool.send(PoolHarness.request(7)) }
        try await harness.eventually("request in flight") {
            connections[0].pending.count + connections[1].pending.count == 1
        }
        let (dying, survivor) = try await harness.onLoop { connections[0].pending.isEmpty ? (1, 0) : (0, 1) }
        try await harness.onLoop { connections[dying].die() }
        try await harness.eventually("request replayed") { connections[survivor].pending.count == 1 }
        try await harness.onLoop { connections[survivor].answerAll() }
        #expect(await sender.value.isAccepted)
    }

    @Test("replays are bounded: after maximumReplays the caller gets notSent")
    func replaysBounded() async throws {
        let harness = PoolHarness { $0.maximumReplays = 3 }
        defer { Task { await harness.shutdown() } }
        let connection = try await harness.ready(maxConcurrentStreams: 10)[0]
        let pool = harness.pool
        let sender = Task { await pool.send(PoolHarness.request(1)) }
        for attempt in 1...4 {
            try await harness.eventually("attempt \(attempt)") {
                connection.submittedCount == attempt && connection.pending.count == 1
            }
            try await harness.onLoop { connection.answerFirst(.failed(.notSent("REFUSED_STREAM"))) }
        }
        let outcome = await sender.value
        #expect(outcome.error?.code == .notSent)
        #expect(try await harness.onLoop { connection.submittedCount } == 4)
    }

    @Test("timed-out and lost requests are not replayed: they may have been delivered")
    func noReplayWhenMaybeDelivered() async throws {
        let harness = PoolHarness()
        defer { Task { await harness.shutdown() } }
        let connection = try await harness.ready(maxConcurrentStreams: 10)[0]
        let outcomes = OutcomeRecorder()
        let pool = harness.pool
        await pool.send(PoolHarness.requests(2)) { outcomes.record($0, $1) }
        try await harness.onLoop {
            connection.answerFirst(.failed(APNsError(code: .timedOut, message: "late")))
            connection.answerFirst(.failed(.connectionLost("reset")))
        }
        #expect(outcomes[0]?.error?.code == .timedOut)
        #expect(outcomes[1]?.error?.code == .connectionLost)
        #expect(try await harness.onLoop { connection.submittedCount } == 2)
    }

    @Test("GOAWAY: the connection finishes what it has, gets nothing new, and is replaced at once")
    func goAway() async throws {
        let harness = PoolHarness()
        defer { Task { await harness.shutdown() } }
        let first = try await harness.ready(maxConcurrentStreams: 10)[0]
        let factory = harness.factory
        let outcomes = OutcomeRecorder()
        let pool = harness.pool
        await pool.send(PoolHarness.requests(2)) { outcomes.record($0, $1) }
        try await harness.onLoop { first.delegate?.connectionDraining(first.id) }
        #expect(try await harness.onLoop { factory.waitingConnects } == 1)
        let late = Task { await pool.send(PoolHarness.request(9)) }
        try await harness.waitUntilQueued(1)
        #expect(try await harness.onLoop { first.submittedCount } == 2)
        let second = try await harness.onLoop { factory.succeed(maxConcurrentStreams: 10) }
        try await harness.eventually("late request on the new connection") { second.pending.count == 1 }
        try await harness.onLoop {
            first.answerAll()
            second.answerAll()
            first.close()
        }
        #expect(await late.value.isAccepted)
        #expect(outcomes.all.values.allSatisfy { $0.isAccepted })
        // The drained connection's close is expected: nothing reconnects for it.
        await harness.loop.advanceTime(by: .seconds(60))
        #expect(try await harness.onLoop { factory.waitingConnects } == 0)
    }

    @Test("a lost connection is reconnected after the backoff delay, not before")
    func reconnectBackoff() async throws {
        let harness = PoolHarness()
        defer { Task { await harness.shutdown() } }
        let connection = try await harness.ready(maxConcurrentStreams: 10)[0]
        let factory = harness.factory
        try await harness.onLoop { connection.die() }
        await harness.loop.advanceTime(by: .milliseconds(999))
        #expect(try await harness.onLoop { factory.waitingConnects } == 0)
        await harness.loop.advanceTime(by: .milliseconds(1))
        #expect(try await harness.onLoop { factory.waitingConnects } == 1)
        // Failing again doubles the delay.
        try await harness.onLoop { factory.fail() }
        await harness.loop.advanceTime(by: .milliseconds(1_999))
        #expect(try await harness.onLoop { factory.waitingConnects } == 0)
        await harness.loop.advanceTime(by: .milliseconds(1))
        #expect(try await harness.onLoop { factory.waitingConnects } == 1)
    }

    @Test("with no connection for the queue timeout, waiting requests fail as notSent with the cause")
    func queueTimeout() async throws {
        let harness = PoolHarness { $0.queueTimeout = .seconds(5) }
        defer { Task { await harness.shutdown() } }
        let pool = harness.pool
        let factory = harness.factory
        pool.start()
        await harness.loop.run()
        try await harness.onLoop { factory.fail("TLS handshake failed: bad certificate") }
        let sender = Task { await pool.send(PoolHarness.request(1)) }
        try await harness.waitUntilQueued(1)
        await harness.loop.advanceTime(by: .seconds(5))
        let outcome = await sender.value
        #expect(outcome.error?.code == .notSent)
        #expect(outcome.error?.message.contains("bad certificate") == true)
    }

    @Test("SETTINGS lowering MAX_CONCURRENT_STREAMS to 1 holds new requests until one is in flight")
    func settingsLowered() async throws {
        let harness = PoolHarness()
        defer { Task { await harness.shutdown() } }
        let connection = try await harness.ready(maxConcurrentStreams: 3)[0]
        let outcomes = OutcomeRecorder()
        let pool = harness.pool
        await pool.send(PoolHarness.requests(3)) { outcomes.record($0, $1) }
        try await harness.onLoop { connection.changeMaxConcurrentStreams(to: 1) }
        let more = Task { await pool.send(PoolHarness.requests(2, from: 3)) { outcomes.record($0 + 3, $1) } }
        try await harness.waitUntilQueued(2)
        for expectedSubmitted in [3, 3, 4] {
            try await harness.onLoop { connection.answerFirst(.response(APNsResponse(status: 200))) }
            #expect(try await harness.onLoop { connection.submittedCount } == expectedSubmitted)
        }
        try await harness.onLoop { connection.answerFirst(.response(APNsResponse(status: 200))) }
        try await harness.eventually("fifth request in flight") { connection.submittedCount == 5 }
        try await harness.onLoop { connection.answerAll() }
        await more.value
        #expect(outcomes.count == 5)
    }

    @Test("ExpiredProviderToken: replayed once on a new connection, which replaces the retired one")
    func expiredProviderToken() async throws {
        let harness = PoolHarness()
        defer { Task { await harness.shutdown() } }
        let first = try await harness.ready(maxConcurrentStreams: 10)[0]
        let factory = harness.factory
        let pool = harness.pool
        let sender = Task { await pool.send(PoolHarness.request(3)) }
        try await harness.eventually("request in flight") { first.pending.count == 1 }
        let expired = APNsResponse(status: 403, reason: .expiredProviderToken)
        try await harness.onLoop { first.answerFirst(.expiredProviderToken(expired, .replayOnNewConnection)) }
        #expect(try await harness.onLoop { first.isRetired })
        let second = try await harness.onLoop { factory.succeed(maxConcurrentStreams: 10) }
        try await harness.eventually("replay on the new connection") { second.pending.count == 1 }
        // A second expiry for the same notification is APNs's final answer.
        try await harness.onLoop { second.answerFirst(.expiredProviderToken(expired, .replayOnSameConnection)) }
        #expect(await sender.value.rejection?.reason == .expiredProviderToken)
    }

    @Test("callers beyond maximumWaitingCallers are refused at once instead of queuing")
    func waitingCallersBounded() async throws {
        let harness = PoolHarness { $0.maximumWaitingCallers = 1 }
        defer { Task { await harness.shutdown() } }
        let connection = try await harness.ready(maxConcurrentStreams: 1)[0]
        let pool = harness.pool
        let first = Task { await pool.send(PoolHarness.request(1)) }
        try await harness.eventually("first in flight") { connection.pending.count == 1 }
        let second = Task { await pool.send(PoolHarness.request(2)) }
        try await harness.waitUntilQueued(1)
        let third = await pool.send(PoolHarness.request(3))
        #expect(third.error?.code == .notSent)
        try await harness.onLoop { connection.answerFirst(.response(APNsResponse(status: 200))) }
        try await harness.eventually("second in flight") { connection.pending.count == 1 }
        try await harness.onLoop { connection.answerAll() }
        #expect(await first.value.isAccepted)
        #expect(await second.value.isAccepted)
    }

    @Test("shutdown fails waiting requests, lets in-flight ones finish, and returns when closed")
    func shutdown() async throws {
        let harness = PoolHarness()
        defer { Task { await harness.shutdown() } }
        let connection = try await harness.ready(maxConcurrentStreams: 1)[0]
        let pool = harness.pool
        let inFlight = Task { await pool.send(PoolHarness.request(1)) }
        try await harness.eventually("first in flight") { connection.pending.count == 1 }
        let waiting = Task { await pool.send(PoolHarness.request(2)) }
        try await harness.waitUntilQueued(1)
        let finished = Flag()
        let shutdown = Task {
            await pool.shutdown()
            finished.set()
        }
        #expect(await waiting.value.error?.code == .notSent)
        try await harness.eventually("connection retired") { connection.isRetired }
        #expect(!finished.isSet)
        try await harness.onLoop { connection.answerAll() }
        #expect(await inFlight.value.isAccepted)
        try await harness.onLoop { connection.close() }
        await shutdown.value
        #expect(await pool.send(PoolHarness.request(3)).error?.code == .notSent)
    }
}
