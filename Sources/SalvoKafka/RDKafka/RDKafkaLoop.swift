import DequeModule
import Foundation
import SalvoPrimitives
import Synchronization

/// What a client does on its loop thread: decide how long to wait for events, act on them, and
/// finish in-flight work when the loop ends.
protocol RDKafkaLoopDelegate: Sendable {
    /// Runs first in every iteration. Returning `.stop` ends the loop.
    func loopWillPoll(_ client: RDKafkaClient) -> RDKafkaLoop.Step
    func loop(_ client: RDKafkaClient, received event: RDKafkaEvent)
    /// Messages taken in one batch, in order: one hand-over instead of one per message.
    func loop(_ client: RDKafkaClient, receivedMessages messages: [KafkaConsumerMessage])
    /// The last call while the client still exists.
    func loopWillStop(_ client: RDKafkaClient)
    /// Called after the client was destroyed: the place to resume whoever waits for the end.
    func loopDidStop()
}

extension RDKafkaLoopDelegate {
    func loop(_ client: RDKafkaClient, receivedMessages messages: [KafkaConsumerMessage]) {
        for message in messages {
            loop(client, received: .message(message))
        }
    }
}

/// The one dedicated OS thread that owns an `RDKafkaClient`.
///
/// It polls the client's event queue (logs, errors, delivery reports, messages, rebalances),
/// runs blocking jobs submitted from async code (admin requests, synchronous commits), and
/// destroys the handle when it ends. librdkafka's blocking calls therefore never run on Swift's
/// cooperative pool, and no librdkafka callback ever runs Swift code on librdkafka's threads.
final class RDKafkaLoop: Sendable {
    enum Step: Equatable, Sendable {
        /// Wait up to the timeout for one event.
        case poll(timeoutMilliseconds: Int32)
        /// Take up to `limit` messages (waiting up to the timeout for the first), then every
        /// pending event without waiting.
        case pollMessages(timeoutMilliseconds: Int32, limit: Int)
        case stop
    }

    /// Events taken in one go after a batch of messages; more wait for the next iteration.
    static let eventBatchLimit = 100

    private struct Inbox {
        var jobs: Deque<@Sendable (RDKafkaClient) -> Void> = []
        /// False once the loop is about to destroy the client: nobody may wake it any more.
        var isOpen = true
    }

    let client: RDKafkaClient
    private let inbox = Mutex(Inbox())
    private let name: String

    init(client: RDKafkaClient, name: String) {
        self.client = client
        self.name = name
    }

    /// Starts the thread. It keeps `delegate` and this loop alive until it ends.
    func start(delegate: some RDKafkaLoopDelegate) {
        let thread = Thread { [self] in
            self.run(delegate)
        }
        thread.name = name
        thread.start()
    }

    /// Interrupts the current poll so the delegate's `loopWillPoll` runs soon.
    /// Returns false when the loop has ended.
    @discardableResult
    func wake() -> Bool {
        inbox.withLock { inbox in
            // Yielding under the lock: the client cannot be destroyed while we touch its queue.
            guard inbox.isOpen else { return false }
            client.wake()
            return true
        }
    }

    /// Runs `work` on the loop thread, where it may block, and returns its result. Fails with
    /// `.shutdown` if the loop has ended.
    func submit<T: Sendable>(
        _ work: @escaping @Sendable (RDKafkaClient) throws(KafkaError) -> T
    ) async throws(KafkaError) -> T {
        let result: Result<T, KafkaError> = await withCheckedContinuation { continuation in
            let accepted = inbox.withLock { inbox in
                guard inbox.isOpen else { return false }
                inbox.jobs.append { client in
                    do throws(KafkaError) {
                        continuation.resume(returning: .success(try work(client)))
                    } catch {
                        continuation.resume(returning: .failure(error))
                    }
                }
                client.wake()
                return true
            }
            if !accepted {
                continuation.resume(returning: .failure(.shutdown("the Kafka client is closed")))
            }
        }
        return try result.get()
    }

    private func run(_ delegate: some RDKafkaLoopDelegate) {
        loop: while true {
            runJobs()
            client.writeLogSummaries()
            switch delegate.loopWillPoll(client) {
            case .stop:
                break loop
            case .poll(let timeout):
                if let event = client.poll(timeoutMilliseconds: timeout) {
                    delegate.loop(client, received: event)
                }
            case .pollMessages(let timeout, let limit):
                takeMessages(limit: limit, timeout: timeout, delegate: delegate)
                for _ in 0..<Self.eventBatchLimit {
                    guard let event = client.poll(timeoutMilliseconds: 0) else { break }
                    delegate.loop(client, received: event)
                }
            }
        }
        inbox.withLock { $0.isOpen = false }
        // Jobs that arrived before the inbox closed still run against a live client.
        runJobs()
        delegate.loopWillStop(client)
        client.writeLogSummaries(final: true)
        client.destroy()
        delegate.loopDidStop()
    }

    /// Takes up to `limit` messages, waiting only for the first, and hands them over in order.
    /// Anything else on the message queue (a partition's fetch error) is handed over in place.
    /// The first is polled (the only call that waits); the rest, already queued, come in one batch.
    private func takeMessages(limit: Int, timeout: Int32, delegate: some RDKafkaLoopDelegate) {
        guard let first = client.pollMessage(timeoutMilliseconds: timeout) else { return }
        var batch: [KafkaConsumerMessage] = []
        batch.reserveCapacity(limit)
        let client = self.client
        let other = { (batch: inout [KafkaConsumerMessage], event: RDKafkaEvent) in
            if !batch.isEmpty {
                delegate.loop(client, receivedMessages: batch)
                batch.removeAll(keepingCapacity: true)
            }
            delegate.loop(client, received: event)
        }
        if case .message(let message) = first {
            batch.append(message)
        } else {
            other(&batch, first)
        }
        _ = client.takeReadyMessages(limit: limit - 1, into: &batch, other: other)
        if !batch.isEmpty {
            delegate.loop(client, receivedMessages: batch)
        }
    }

    private func runJobs() {
        while let job = inbox.withLock({ $0.jobs.popFirst() }) {
            job(client)
        }
    }
}
