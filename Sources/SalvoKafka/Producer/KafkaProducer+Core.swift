import Logging
import SalvoPrimitives
import Synchronization

extension KafkaProducer {
    typealias DeliveryResult = Result<KafkaDeliveryReport, KafkaError>
    typealias Waiter = CheckedContinuation<Result<Void, KafkaError>, Never>

    /// What an attempt to hand a message to librdkafka led to.
    enum SendAttempt: Sendable {
        case delivered(DeliveryResult)
        case queueFull
    }

    /// Who learns a message's fate: an awaiting `send`, or an `enqueue` callback.
    enum Completion: Sendable {
        case continuation(CheckedContinuation<SendAttempt, Never>)
        case callback(@Sendable (DeliveryResult) -> Void)

        func complete(_ result: DeliveryResult) {
            switch self {
            case .continuation(let continuation): continuation.resume(returning: .delivered(result))
            case .callback(let callback): callback(result)
            }
        }
    }

    struct Shared {
        var machine = StateMachine<Completion, Waiter, ContinuousClock>()
        var shutdownWaiters: [CheckedContinuation<Void, Never>] = []
        var isStopped = false
    }

    /// The loop delegate; kept apart from `KafkaProducer` so a dropped producer still drains.
    final class Core: RDKafkaLoopDelegate {
        static let pollTimeoutMilliseconds: Int32 = 100

        let loop: RDKafkaLoop
        let shared = Mutex(Shared())
        private let clock = ContinuousClock()
        private let observer: KafkaProducerObserver?
        private let logger: Logger

        init(client: RDKafkaClient, observer: KafkaProducerObserver?, logger: Logger) {
            self.loop = RDKafkaLoop(client: client, name: "salvo-kafka-producer")
            self.observer = observer
            self.logger = logger
        }

        /// Hands the message to librdkafka under the lock, so its delivery report (handled on
        /// the loop thread, under the same lock) always finds the completion registered.
        func tryProduce(_ message: KafkaProducerMessage, completion: Completion) -> SendAttempt? {
            let completion = observed(completion, topic: message.topic)
            return shared.withLock { shared -> SendAttempt? in
                let id: UInt
                switch shared.machine.beginSend() {
                case .success(let allocated): id = allocated
                case .failure(let error): return .delivered(.failure(error))
                }
                switch loop.client.produce(message, id: id) {
                case .enqueued:
                    shared.machine.enqueued(id: id, completion: completion)
                    return nil
                case .queueFull:
                    return .queueFull
                case .failed(let error):
                    return .delivered(.failure(error))
                }
            }
        }

        /// `completion`, telling the observer (if any) how long the delivery report took first.
        private func observed(_ completion: Completion, topic: String) -> Completion {
            guard let observer else { return completion }
            let (clock, started) = (self.clock, self.clock.now)
            return .callback { result in
                let acknowledged = if case .success = result { true } else { false }
                observer.delivered(topic, started.duration(to: clock.now), acknowledged)
                completion.complete(result)
            }
        }

        func waitForCapacity() async throws(KafkaError) {
            let result: Result<Void, KafkaError> = await withCheckedContinuation { continuation in
                let waiting = shared.withLock { $0.machine.waitForCapacity(continuation) }
                if !waiting {
                    continuation.resume(returning: .failure(.shutdown("the producer is shutting down")))
                }
            }
            try result.get()
        }

        func flush(timeout: Duration) async throws(KafkaError) {
            let deadline = clock.now.advanced(by: timeout)
            let result: Result<Void, KafkaError> = await withCheckedContinuation { continuation in
                let done = shared.withLock { shared in
                    shared.isStopped || shared.machine.flush(continuation, deadline: deadline)
                }
                if done {
                    continuation.resume(returning: .success(()))
                } else {
                    loop.wake()
                }
            }
            try result.get()
        }

        func shutdown(timeout: Duration) async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let stopped = shared.withLock { shared in
                    guard !shared.isStopped else { return true }
                    shared.shutdownWaiters.append(continuation)
                    return false
                }
                if stopped {
                    continuation.resume()
                } else {
                    requestShutdown(timeout: timeout)
                }
            }
        }

        func requestShutdown(timeout: Duration) {
            let now = clock.now
            shared.withLock { $0.machine.shutdown(now: now, timeout: timeout) }
            loop.wake()
        }

        // MARK: The loop thread

        func loopWillPoll(_ client: RDKafkaClient) -> RDKafkaLoop.Step {
            let now = clock.now
            let action = shared.withLock { $0.machine.tick(now: now) }
            for waiter in action.retry + action.flushed {
                waiter.resume(returning: .success(()))
            }
            for waiter in action.flushTimedOut {
                let outstanding = shared.withLock { $0.machine.outstandingCount }
                waiter.resume(returning: .failure(.timedOut("flush: \(outstanding) message(s) still undelivered")))
            }
            if action.purge {
                logger.warning("shutdown timeout: purging undelivered messages")
                client.purgeAll()
            }
            return action.stop ? .stop : .poll(timeoutMilliseconds: Self.pollTimeoutMilliseconds)
        }

        func loop(_ client: RDKafkaClient, received event: RDKafkaEvent) {
            switch event {
            case .deliveryReports(let reports):
                let completions = shared.withLock { shared in
                    reports.map { (shared.machine.delivered(id: $0.id), $0.result) }
                }
                for (completion, result) in completions {
                    if let completion {
                        completion.complete(result)
                    } else {
                        logger.error("delivery report for an unknown message", metadata: ["result": "\(result)"])
                    }
                }
            case .error(let error) where error.isFatal:
                shared.withLock { $0.machine.fail(error) }
            case .statistics(let json):
                logger.trace("librdkafka statistics", metadata: ["rdkafka.statistics": "\(json)"])
            case .error, .message, .consumerError, .rebalance, .handled:
                break
            }
        }

        func loopWillStop(_ client: RDKafkaClient) {
            let (completions, waiters) = shared.withLock { shared in
                shared.isStopped = true
                return shared.machine.stopped()
            }
            let error = KafkaError.shutdown("the producer shut down before the message was delivered")
            for completion in completions {
                completion.complete(.failure(error))
            }
            for waiter in waiters {
                waiter.resume(returning: .failure(error))
            }
        }

        func loopDidStop() {
            let waiters = shared.withLock { shared in
                var waiters: [CheckedContinuation<Void, Never>] = []
                swap(&waiters, &shared.shutdownWaiters)
                return waiters
            }
            for waiter in waiters {
                waiter.resume()
            }
            logger.debug("producer stopped")
        }
    }
}
