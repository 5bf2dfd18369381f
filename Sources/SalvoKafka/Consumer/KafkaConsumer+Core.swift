import Logging
import SalvoPrimitives
import Synchronization

extension KafkaConsumer {
    typealias Waiter = CheckedContinuation<Result<KafkaConsumerMessage?, KafkaError>, Never>
    typealias Completion = CheckedContinuation<Result<Void, KafkaError>, Never>

    /// State shared by the public API (any task) and the poll loop thread, behind one lock.
    struct Shared {
        var machine: StateMachine<Waiter, ContinuousClock>
        var nextWaiterID = 0
        var commitWaiters: [Completion] = []
        var closeWaiters: [Completion] = []
        var isStopped = false
    }

    /// The poll loop's delegate. Kept apart from `KafkaConsumer` so that dropping the last
    /// reference to the consumer can still close it while the loop runs.
    final class Core: RDKafkaLoopDelegate {
        /// How long one poll may block; bounds the latency of commits, pauses and closing.
        static let pollTimeoutMilliseconds: Int32 = 100

        let loop: RDKafkaLoop
        let shared: Mutex<Shared>
        let configuration: KafkaConsumerConfiguration
        private let assignmentContinuation: AsyncStream<KafkaAssignmentChange>.Continuation
        private let observer: KafkaConsumerObserver
        private let revokeBarrier: KafkaRevokeBarrier?
        private let clock = ContinuousClock()
        let logger: Logger

        init(
            client: RDKafkaClient,
            configuration: KafkaConsumerConfiguration,
            assignmentContinuation: AsyncStream<KafkaAssignmentChange>.Continuation,
            observer: KafkaConsumerObserver,
            revokeBarrier: KafkaRevokeBarrier?,
            logger: Logger
        ) {
            self.revokeBarrier = revokeBarrier
            self.loop = RDKafkaLoop(client: client, name: "salvo-kafka-consumer")
            self.configuration = configuration
            self.assignmentContinuation = assignmentContinuation
            self.observer = observer
            self.logger = logger
            self.shared = Mutex(
                Shared(
                    machine: StateMachine(
                        capacity: configuration.bufferCapacity,
                        commitInterval: configuration.commitInterval,
                        now: ContinuousClock().now
                    )))
        }

        // MARK: Called from application tasks

        func pop() -> StateMachine<Waiter, ContinuousClock>.NextResult {
            let (result, wake) = shared.withLock { $0.machine.pop() }
            if wake { loop.wake() }
            return result
        }

        func makeWaiterID() -> Int {
            shared.withLock { shared in
                shared.nextWaiterID += 1
                return shared.nextWaiterID
            }
        }

        func wait(id: Int, waiter: Waiter) {
            let (result, wake) = shared.withLock { shared in
                // Checked under the lock that `cancel` takes: a cancellation cannot slip between.
                Task.isCancelled ? (.finished, false) : shared.machine.next(id: id, waiter: waiter)
            }
            if wake { loop.wake() }
            switch result {
            case .message(let message): waiter.resume(returning: .success(message))
            case .finished: waiter.resume(returning: .success(nil))
            case .failed(let error): waiter.resume(returning: .failure(error))
            case .wait: break
            }
        }

        func cancel(id: Int) {
            shared.withLock { $0.machine.cancel(id: id) }?.resume(returning: .success(nil))
        }

        func markDone(_ offset: Int64, in partition: KafkaTopicPartition) -> KafkaOffsetTracker.MarkResult {
            shared.withLock { $0.machine.markDone(offset, in: partition) }
        }

        func progress(of partitions: [KafkaTopicPartition]?) -> [KafkaTopicPartition: KafkaPartitionProgress] {
            shared.withLock { $0.machine.progress(of: partitions) }
        }

        func pause(_ partitions: [KafkaTopicPartition]?) {
            shared.withLock { shared in
                if let partitions { shared.machine.pause(partitions) } else { shared.machine.pauseAll() }
            }
            loop.wake()
        }

        func resume(_ partitions: [KafkaTopicPartition]?) {
            let deliveries = shared.withLock { shared in
                if let partitions { shared.machine.resume(partitions) } else { shared.machine.resumeAll() }
            }
            for (waiter, message) in deliveries {
                waiter.resume(returning: .success(message))
            }
            loop.wake()
        }

        func commitNow() async throws(KafkaError) {
            let result: Result<Void, KafkaError> = await withCheckedContinuation { continuation in
                let accepted = shared.withLock { shared in
                    guard !shared.isStopped, shared.machine.lifecycle == .running else { return false }
                    shared.commitWaiters.append(continuation)
                    shared.machine.requestCommit()
                    return true
                }
                if accepted {
                    loop.wake()
                } else {
                    continuation.resume(returning: .failure(.shutdown("the consumer is closing")))
                }
            }
            try result.get()
        }

        func close() async throws(KafkaError) {
            let result: Result<Void, KafkaError> = await withCheckedContinuation { continuation in
                let alreadyStopped = shared.withLock { shared in
                    guard !shared.isStopped else { return true }
                    shared.closeWaiters.append(continuation)
                    return false
                }
                if alreadyStopped {
                    continuation.resume(returning: .success(()))
                } else {
                    requestClose()
                }
            }
            try result.get()
        }

        /// Starts closing without waiting for it (also used when the consumer is dropped).
        func requestClose() {
            let timeout = configuration.closeTimeout
            let now = clock.now
            let waiters = shared.withLock { $0.machine.requestClose(now: now, timeout: timeout) }
            for waiter in waiters {
                waiter.resume(returning: .success(nil))
            }
            loop.wake()
        }

        // MARK: The loop thread

        func loopWillPoll(_ client: RDKafkaClient) -> RDKafkaLoop.Step {
            let now = clock.now
            let (action, committers) = shared.withLock { shared in
                if shared.machine.isLeaving, client.isConsumerClosed {
                    shared.machine.didLeave()
                }
                let action = shared.machine.tick(now: now)
                var committers: [Completion] = []
                if action.commit != nil {
                    swap(&committers, &shared.commitWaiters)
                }
                return (action, committers)
            }
            client.pause(action.pause)
            client.resume(action.resume)
            if let offsets = action.commit {
                let result = commit(offsets, client: client)
                for committer in committers {
                    committer.resume(returning: result)
                }
            }
            if action.startLeaving {
                do throws(KafkaError) {
                    try client.startClose()
                } catch {
                    logger.warning("leaving the consumer group failed", metadata: ["error": "\(error)"])
                    shared.withLock { $0.machine.didLeave() }
                }
            }
            if action.stop { return .stop }
            if action.messageLimit > 0 {
                return .pollMessages(timeoutMilliseconds: Self.pollTimeoutMilliseconds, limit: action.messageLimit)
            }
            return .poll(timeoutMilliseconds: Self.pollTimeoutMilliseconds)
        }

        func loop(_ client: RDKafkaClient, receivedMessages messages: [KafkaConsumerMessage]) {
            let deliveries = shared.withLock { $0.machine.receive(messages) }
            for (waiter, message) in deliveries {
                waiter.resume(returning: .success(message))
            }
        }

        func loop(_ client: RDKafkaClient, received event: RDKafkaEvent) {
            switch event {
            case .message(let message):
                shared.withLock { $0.machine.receive(message) }?.resume(returning: .success(message))
            case .rebalance(let rebalance):
                handle(rebalance, client: client)
            case .error(let error) where error.isFatal:
                let now = clock.now
                let waiters = shared.withLock { $0.machine.fail(error, now: now, timeout: configuration.closeTimeout) }
                for waiter in waiters {
                    waiter.resume(returning: .failure(error))
                }
            case .consumerError(let error, let partition):
                client.log(
                    .warning, "consumer error", kind: "consumer error \(error.rdKafkaErrorName ?? "\(error.code)")",
                    detail: error.message,
                    metadata: ["error": "\(error)", "partition": "\(partition.map(\.description) ?? "-")"])
            case .statistics(let json):
                logger.trace("librdkafka statistics", metadata: ["rdkafka.statistics": "\(json)"])
            case .error, .deliveryReports, .handled:
                break
            }
        }

        private func handle(_ rebalance: RDKafkaRebalance, client: RDKafkaClient) {
            switch rebalance {
            case .assign(let partitions):
                let (added, doneWatermarks) = shared.withLock { $0.machine.assigned(partitions) }
                let resumed = startOffsets(from: doneWatermarks, client: client)
                let plan = startPlan(for: partitions.filter { doneWatermarks[$0] == nil }, client: client)
                let startOffsets = resumed.merging(plan.offsets) { resumed, _ in resumed }
                shared.withLock {
                    $0.machine.starting(at: resumed.merging(plan.pinned) { resumed, _ in resumed })
                    $0.machine.skipping(olderThan: plan.cutoffs)
                }
                client.routeMessages(of: partitions)
                do throws(KafkaError) {
                    try client.assign(partitions, startOffsets: startOffsets)
                } catch {
                    logger.error("assigning partitions failed", metadata: ["error": "\(error)"])
                }
                logger.info(
                    "partitions assigned",
                    metadata: [
                        "partitions": "\(partitions.sorted())",
                        "startOffsets": "\(startOffsets.sorted { $0.key < $1.key })",
                    ])
                observer.rebalanced(true, shared.withLock { $0.machine.assignment.count })
                if !added.isEmpty { assignmentContinuation.yield(.assigned(added.sorted())) }
            case .revoke(let partitions):
                revoke(partitions, client: client)
            case .failed(let error):
                logger.warning("rebalance failed; dropping the assignment", metadata: ["error": "\(error)"])
                revoke(Array(shared.withLock { $0.machine.assignment }), client: client)
            }
        }

        /// Where to start partitions that come back with an uncommitted done watermark: there, or
        /// at the group's committed offset if another member got further meanwhile. If the group
        /// cannot be asked, the watermark is still safe: it skips only finished messages.
        private func startOffsets(
            from doneWatermarks: [KafkaTopicPartition: Int64],
            client: RDKafkaClient
        ) -> [KafkaTopicPartition: Int64] {
            guard !doneWatermarks.isEmpty else { return [:] }
            guard let committed = try? client.committed(Array(doneWatermarks.keys), timeout: .seconds(5)) else {
                return doneWatermarks
            }
            return doneWatermarks.filter { partition, watermark in
                guard let stored = committed[partition] ?? nil else { return true }
                return watermark > stored
            }
        }

        /// Commits the done watermark of the revoked partitions before giving them up, so their
        /// next owner starts after everything this member finished — after the application
        /// finished their work in flight, when it set a ``KafkaRevokeBarrier``.
        private func revoke(_ partitions: [KafkaTopicPartition], client: RDKafkaClient) {
            if let revokeBarrier, !client.assignmentLost {
                // Their buffered messages will not be handed out any more: the next owner gets them.
                shared.withLock { $0.machine.dropBuffered(partitions) }
                let started = clock.now
                if revokeBarrier.wait(for: partitions) {
                    logger.debug(
                        "revoked partitions finished", metadata: ["waited": "\(started.duration(to: clock.now))"])
                } else {
                    logger.warning(
                        "revoke went ahead with work still in flight",
                        metadata: [
                            "partitions": "\(partitions.sorted())", "waited": "\(revokeBarrier.limit)",
                        ])
                }
            }
            let offsets = shared.withLock { $0.machine.revoking(partitions) }
            var uncommitted: [KafkaTopicPartition: Int64] = [:]
            if client.assignmentLost {
                // The coordinator would reject the commit; the next owner may reprocess.
                logger.warning("assignment lost before its done watermark was committed")
                uncommitted = offsets
            } else if case .failure = commit(offsets, client: client) {
                uncommitted = offsets
            }
            do throws(KafkaError) {
                try client.unassign(partitions)
            } catch {
                logger.error("unassigning partitions failed", metadata: ["error": "\(error)"])
            }
            let removed = shared.withLock { $0.machine.revoked(partitions, uncommitted: uncommitted) }
            logger.info("partitions revoked", metadata: ["partitions": "\(partitions.sorted())"])
            observer.rebalanced(false, shared.withLock { $0.machine.assignment.count })
            if !removed.isEmpty { assignmentContinuation.yield(.revoked(removed.sorted())) }
        }

        private func commit(_ offsets: [KafkaTopicPartition: Int64], client: RDKafkaClient) -> Result<Void, KafkaError>
        {
            guard !offsets.isEmpty else { return .success(()) }
            let started = clock.now
            do throws(KafkaError) {
                try client.commit(offsets)
                observer.committed(started.duration(to: clock.now), true)
                shared.withLock { $0.machine.commitFinished(offsets, succeeded: true) }
                logger.debug("committed offsets", metadata: ["offsets": "\(offsets.sorted { $0.key < $1.key })"])
                return .success(())
            } catch {
                observer.committed(started.duration(to: clock.now), false)
                shared.withLock { $0.machine.commitFinished(offsets, succeeded: false) }
                // Retried every commit interval while the coordinator is away: one line per interval.
                client.log(
                    .warning, "offset commit failed; will retry", kind: "offset commit failed", detail: error.message,
                    metadata: ["error": "\(error)"])
                return .failure(error)
            }
        }

        func loopWillStop(_ client: RDKafkaClient) {
            let (waiters, committers) = shared.withLock { shared in
                shared.isStopped = true
                var committers: [Completion] = []
                swap(&committers, &shared.commitWaiters)
                return (shared.machine.stopped(), committers)
            }
            for waiter in waiters {
                waiter.resume(returning: .success(nil))
            }
            for committer in committers {
                committer.resume(returning: .failure(.shutdown("the consumer closed before committing")))
            }
        }

        func loopDidStop() {
            let closers = shared.withLock { shared in
                var closers: [Completion] = []
                swap(&closers, &shared.closeWaiters)
                return closers
            }
            for closer in closers {
                closer.resume(returning: .success(()))
            }
            assignmentContinuation.finish()
            logger.debug("consumer closed")
        }
    }
}
