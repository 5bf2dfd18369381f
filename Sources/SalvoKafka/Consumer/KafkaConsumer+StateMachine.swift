import DequeModule

extension KafkaConsumer {
    /// Every decision of the consumer's poll loop, free of I/O: how many messages to take from
    /// librdkafka (none while the hand-over buffer is full), what to hand to waiting iterators,
    /// which partitions librdkafka must pause or resume, what to commit and when, and how closing
    /// proceeds. The loop executes the returned actions outside any lock.
    ///
    /// Generic over the waiter (a continuation in production, a number in tests) and the clock.
    struct StateMachine<Waiter, C: Clock> where C.Duration == Duration {
        enum Lifecycle: Equatable {
            case running
            /// `close()` was called: commit, then start leaving the group.
            case closing(deadline: C.Instant)
            /// Leaving the group; rebalance events are still served.
            case leaving(deadline: C.Instant)
            case closed
        }

        /// What an iterator's `next()` gets.
        enum NextResult: Equatable {
            case message(KafkaConsumerMessage)
            case finished
            case failed(KafkaError)
            /// Nothing buffered; the waiter was stored (or, for `pop`, nothing happened).
            case wait
        }

        /// What the loop does at the start of an iteration.
        struct TickAction: Equatable {
            var pause: [KafkaTopicPartition] = []
            var resume: [KafkaTopicPartition] = []
            /// Offsets to commit now; `[:]` when a requested commit has nothing to do.
            var commit: [KafkaTopicPartition: Int64]?
            var startLeaving = false
            var stop = false
            /// How many messages the loop may take from librdkafka now; 0 while the buffer is
            /// full (librdkafka's bounded prefetch then stops fetching).
            var messageLimit = 0
        }

        /// Most messages taken from librdkafka in one loop iteration.
        static var messageBatchLimit: Int { 256 }

        private(set) var lifecycle: Lifecycle = .running {
            didSet { isRunning = lifecycle == .running }
        }
        /// `lifecycle == .running`, asked for every message: `Lifecycle` carries a `C.Instant`
        /// (hot-path rule 3, docs/performance-notes.md: ~150 instructions per message).
        private(set) var isRunning = true
        private(set) var tracker = KafkaOffsetTracker()
        private(set) var assignment: Set<KafkaTopicPartition> = []
        private var buffer = KafkaMessageBuffer()
        private var waiters: Deque<(id: Int, waiter: Waiter)> = []
        private var userPaused: Set<KafkaTopicPartition> = []
        private var allPausedByUser = false
        private var libraryPaused: Set<KafkaTopicPartition> = []
        /// The ready buffer reached `capacity`: take no messages until it is half empty.
        private(set) var isBackpressured = false
        /// Whether the desired library pause set may differ from `libraryPaused`.
        private var pauseChanged = false
        private var commitRequested = false
        private var nextCommit: C.Instant
        private var failure: KafkaError?
        /// Done watermarks that a revoke could not commit (a coordinator that refuses commits
        /// while rebalancing, a timeout, a lost assignment). If the next assignment hands the
        /// partitions back, fetching may start there instead of at an older committed offset.
        private var uncommittedRevoked: [KafkaTopicPartition: Int64] = [:]
        /// Partitions started by time (``KafkaStartPosition``): records older than their cutoff
        /// (milliseconds since 1970) are done without being handed out, until the first newer one.
        /// The offset lookup already skips them on Kafka; brokers that answer it loosely (Tansu
        /// answers offset 0 for a time after every record) are covered here.
        private var startCutoffs: [KafkaTopicPartition: Int64] = [:]
        /// Records skipped as older than their partition's start cutoff.
        private(set) var skippedBeforeStart = 0
        let capacity: Int
        let commitInterval: Duration

        init(capacity: Int, commitInterval: Duration, now: C.Instant) {
            self.capacity = capacity
            self.commitInterval = commitInterval
            self.nextCommit = now.advanced(by: commitInterval)
        }

        var bufferedCount: Int { buffer.readyCount + buffer.parkedCount }
        var isLeaving: Bool {
            if case .leaving = lifecycle { return true }
            return false
        }

        // MARK: Messages

        /// A message arrived from librdkafka. Returns the waiter to resume with it, if any.
        mutating func receive(_ message: KafkaConsumerMessage) -> Waiter? {
            guard isRunning, assignment.contains(message.topicPartition) else { return nil }
            tracker.track(message.offset, in: message.topicPartition)
            if !startCutoffs.isEmpty, let cutoff = startCutoffs[message.topicPartition] {
                if let timestamp = message.timestampMilliseconds, timestamp < cutoff {
                    tracker.markDone(message.offset, in: message.topicPartition)
                    skippedBeforeStart += 1
                    return nil
                }
                startCutoffs[message.topicPartition] = nil
            }
            let parked = isPausedByUser(message.topicPartition)
            if !parked, let first = waiters.popFirst() {
                return first.waiter
            }
            buffer.append(message, parked: parked)
            if !isBackpressured, buffer.readyCount >= capacity {
                isBackpressured = true
            }
            return nil
        }

        /// Messages arrived from librdkafka in one batch. Returns the waiters to resume, each with
        /// its message; the rest is buffered.
        ///
        /// Each message is lent from the array's storage: iterating the array copied every message
        /// out first (a retain and release of its topic, value, key and headers), ~250 instructions
        /// per message on top of the copy the buffer keeps.
        mutating func receive(_ messages: [KafkaConsumerMessage]) -> [(Waiter, KafkaConsumerMessage)] {
            var deliveries: [(Waiter, KafkaConsumerMessage)] = []
            messages.withUnsafeBufferPointer { messages in
                for index in messages.indices {
                    if let waiter = receive(messages[index]) {
                        deliveries.append((waiter, messages[index]))
                    }
                }
            }
            return deliveries
        }

        /// Takes a ready message without waiting. The flag says whether the loop must be woken
        /// because backpressure just ended.
        mutating func pop() -> (result: NextResult, wakeLoop: Bool) {
            guard isRunning else { return (failure.map { .failed($0) } ?? .finished, false) }
            guard let message = buffer.popFirst() else { return (.wait, false) }
            if isBackpressured, buffer.readyCount <= capacity / 2 {
                isBackpressured = false
                return (.message(message), true)
            }
            return (.message(message), false)
        }

        /// `pop`, and if nothing is ready, store the waiter.
        mutating func next(id: Int, waiter: Waiter) -> (result: NextResult, wakeLoop: Bool) {
            let popped = pop()
            if popped.result == .wait {
                waiters.append((id, waiter))
            }
            return popped
        }

        /// Removes a waiting iterator whose task was cancelled.
        mutating func cancel(id: Int) -> Waiter? {
            guard let index = waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return waiters.remove(at: index).waiter
        }

        mutating func markDone(_ offset: Int64, in partition: KafkaTopicPartition) -> KafkaOffsetTracker.MarkResult {
            tracker.markDone(offset, in: partition)
        }

        /// The tracked partitions' progress beyond their commits (all when `partitions` is nil).
        func progress(of partitions: [KafkaTopicPartition]?) -> [KafkaTopicPartition: KafkaPartitionProgress] {
            var found: [KafkaTopicPartition: KafkaPartitionProgress] = [:]
            for partition in partitions ?? Array(tracker.trackedPartitions) {
                if let progress = tracker.progress(for: partition) { found[partition] = progress }
            }
            return found
        }

        // MARK: Pausing

        /// Parks the partitions' buffered messages at once; librdkafka is paused at the next tick.
        mutating func pause(_ partitions: some Sequence<KafkaTopicPartition>) {
            userPaused.formUnion(partitions)
            buffer.park { userPaused.contains($0) }
            pauseChanged = true
        }

        mutating func pauseAll() {
            allPausedByUser = true
            buffer.park { _ in true }
            pauseChanged = true
        }

        /// Returns waiters to resume with messages that became deliverable.
        mutating func resume(_ partitions: some Sequence<KafkaTopicPartition>) -> [(Waiter, KafkaConsumerMessage)] {
            userPaused.subtract(partitions)
            return unparkDeliverable()
        }

        mutating func resumeAll() -> [(Waiter, KafkaConsumerMessage)] {
            allPausedByUser = false
            userPaused.removeAll()
            return unparkDeliverable()
        }

        func isPausedByUser(_ partition: KafkaTopicPartition) -> Bool {
            allPausedByUser || userPaused.contains(partition)
        }

        private mutating func unparkDeliverable() -> [(Waiter, KafkaConsumerMessage)] {
            pauseChanged = true
            let paused = userPaused
            let all = allPausedByUser
            buffer.unpark { !all && !paused.contains($0) }
            var deliveries: [(Waiter, KafkaConsumerMessage)] = []
            while !waiters.isEmpty, let message = buffer.popFirst() {
                deliveries.append((waiters.removeFirst().waiter, message))
            }
            return deliveries
        }

        // MARK: Rebalancing

        /// Partitions were assigned (librdkafka starts them unpaused). Returns the new ones, and
        /// the done watermarks this member could not commit for any of them. Starting at one skips
        /// only messages this member completed, so nothing is lost; the loop starts at the group's
        /// committed offset instead when that is further.
        mutating func assigned(
            _ partitions: [KafkaTopicPartition]
        ) -> (added: [KafkaTopicPartition], startOffsets: [KafkaTopicPartition: Int64]) {
            let added = partitions.filter { !assignment.contains($0) }
            assignment.formUnion(partitions)
            libraryPaused.subtract(partitions)
            pauseChanged = true
            let startOffsets = uncommittedRevoked.filter { partitions.contains($0.key) }
            uncommittedRevoked = [:]
            return (added, startOffsets)
        }

        /// Fetching of assigned partitions starts at these done watermarks (those of ``assigned(_:)``
        /// that the group had not passed): they are committed at the next commit, even if no new
        /// message arrives.
        mutating func starting(at offsets: [KafkaTopicPartition: Int64]) {
            for (partition, offset) in offsets where assignment.contains(partition) {
                tracker.start(at: offset, in: partition)
            }
        }

        /// Records of these partitions older than their cutoff (milliseconds since 1970) are
        /// skipped, as done, until the first newer one arrives.
        mutating func skipping(olderThan cutoffs: [KafkaTopicPartition: Int64]) {
            for (partition, cutoff) in cutoffs where assignment.contains(partition) {
                startCutoffs[partition] = cutoff
            }
        }

        /// A revoke of these partitions began: their buffered messages are no longer handed out
        /// (they stay tracked, so the commit stops before them).
        mutating func dropBuffered(_ partitions: [KafkaTopicPartition]) {
            _ = buffer.remove(Set(partitions))
            if isBackpressured, buffer.readyCount <= capacity / 2 {
                isBackpressured = false
            }
        }

        /// Offsets to commit synchronously before giving these partitions up.
        func revoking(_ partitions: [KafkaTopicPartition]) -> [KafkaTopicPartition: Int64] {
            tracker.commitCandidates(in: partitions)
        }

        /// The partitions are gone: forget their offsets and buffered messages. `uncommitted` are
        /// the done watermarks the revoke could not commit. Returns the partitions that were
        /// assigned.
        mutating func revoked(
            _ partitions: [KafkaTopicPartition],
            uncommitted: [KafkaTopicPartition: Int64] = [:]
        ) -> [KafkaTopicPartition] {
            uncommittedRevoked.merge(uncommitted) { _, newer in newer }
            let removed = partitions.filter { assignment.contains($0) }
            let set = Set(partitions)
            assignment.subtract(set)
            for partition in set { startCutoffs[partition] = nil }
            tracker.remove(set)
            buffer.remove(set)
            userPaused.subtract(set)
            libraryPaused.subtract(set)
            pauseChanged = true
            if isBackpressured, buffer.readyCount <= capacity / 2 {
                isBackpressured = false
            }
            return removed
        }

        // MARK: Loop iteration

        mutating func requestCommit() {
            commitRequested = true
        }

        mutating func tick(now: C.Instant) -> TickAction {
            var action = TickAction()
            switch lifecycle {
            case .running:
                applyPauseChanges(to: &action)
                if !isBackpressured {
                    action.messageLimit = min(Self.messageBatchLimit, max(1, capacity - buffer.readyCount))
                }
                if commitRequested || now >= nextCommit {
                    let candidates = tracker.commitCandidates()
                    if commitRequested || !candidates.isEmpty {
                        action.commit = candidates
                    }
                    commitRequested = false
                    nextCommit = now.advanced(by: commitInterval)
                }
            case .closing(let deadline):
                action.commit = tracker.commitCandidates()
                action.startLeaving = true
                lifecycle = .leaving(deadline: deadline)
            case .leaving(let deadline):
                if now >= deadline {
                    lifecycle = .closed
                    action.stop = true
                }
            case .closed:
                action.stop = true
            }
            return action
        }

        private mutating func applyPauseChanges(to action: inout TickAction) {
            guard pauseChanged else { return }
            pauseChanged = false
            let desired = assignment.filter { isPausedByUser($0) }
            action.pause = desired.subtracting(libraryPaused).sorted()
            action.resume = libraryPaused.subtracting(desired).sorted()
            libraryPaused = desired
        }

        /// Records a finished commit (the offsets the loop sent, and whether they were stored).
        mutating func commitFinished(_ offsets: [KafkaTopicPartition: Int64], succeeded: Bool) {
            if succeeded {
                tracker.didCommit(offsets)
            }
        }

        // MARK: Closing

        /// Stops handing out messages. Returns the waiters to finish.
        mutating func requestClose(now: C.Instant, timeout: Duration) -> [Waiter] {
            guard lifecycle == .running else { return [] }
            lifecycle = .closing(deadline: now.advanced(by: timeout))
            // Buffered messages were never processed: they stay outstanding in the tracker, so
            // the final commit stops before them and the next owner receives them.
            buffer.removeAll()
            return waiters.takeAll().map(\.waiter)
        }

        /// A fatal client error: fail waiters and close.
        mutating func fail(_ error: KafkaError, now: C.Instant, timeout: Duration) -> [Waiter] {
            failure = failure ?? error
            if lifecycle == .running {
                return requestClose(now: now, timeout: timeout)
            }
            return waiters.takeAll().map(\.waiter)
        }

        /// librdkafka reported the consumer closed (or closing failed).
        mutating func didLeave() {
            lifecycle = .closed
        }

        /// The loop ended; returns waiters that still wait.
        mutating func stopped() -> [Waiter] {
            lifecycle = .closed
            buffer.removeAll()
            return waiters.takeAll().map(\.waiter)
        }

        /// Offsets for lag reporting: the done watermark per assigned partition.
        func committableOffsets() -> [KafkaTopicPartition: Int64?] {
            var offsets: [KafkaTopicPartition: Int64?] = [:]
            for partition in assignment {
                let offset: Int64? =
                    tracker.committableOffset(for: partition) ?? tracker.committedOffset(for: partition)
                offsets[partition] = offset
            }
            return offsets
        }
    }
}

extension Deque {
    /// Empties the deque and returns what it held.
    fileprivate mutating func takeAll() -> [Element] {
        let elements = Array(self)
        self = []
        return elements
    }
}
