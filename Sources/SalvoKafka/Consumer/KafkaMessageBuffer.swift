import DequeModule

/// The hand-over buffer between the poll thread and the application.
///
/// Messages of partitions the application paused are parked (kept in order, not handed out)
/// rather than dropped, because librdkafka already counts them as consumed: dropping them would
/// skip them until the next rebalance. Parked messages are only ever moved out of the ready
/// queue or arrive in the short window before librdkafka applies the pause, so they are bounded
/// by the ready capacity too.
struct KafkaMessageBuffer: Sendable {
    private var ready: Deque<KafkaConsumerMessage> = []
    private var parked: [KafkaTopicPartition: Deque<KafkaConsumerMessage>] = [:]
    private(set) var parkedCount = 0

    var readyCount: Int { ready.count }

    mutating func append(_ message: KafkaConsumerMessage, parked isParked: Bool) {
        if isParked {
            parked[message.topicPartition, default: []].append(message)
            parkedCount += 1
        } else {
            ready.append(message)
        }
    }

    mutating func popFirst() -> KafkaConsumerMessage? {
        ready.popFirst()
    }

    /// Moves the ready messages of matching partitions aside, keeping their order.
    mutating func park(where shouldPark: (KafkaTopicPartition) -> Bool) {
        guard ready.contains(where: { shouldPark($0.topicPartition) }) else { return }
        var kept: Deque<KafkaConsumerMessage> = []
        kept.reserveCapacity(ready.count)
        for message in ready {
            if shouldPark(message.topicPartition) {
                parked[message.topicPartition, default: []].append(message)
                parkedCount += 1
            } else {
                kept.append(message)
            }
        }
        ready = kept
    }

    /// Makes parked messages of matching partitions ready again, after the ones already ready.
    mutating func unpark(where shouldUnpark: (KafkaTopicPartition) -> Bool) {
        for partition in parked.keys.sorted() where shouldUnpark(partition) {
            if let messages = parked.removeValue(forKey: partition) {
                ready.append(contentsOf: messages)
                parkedCount -= messages.count
            }
        }
    }

    /// Drops everything buffered for these partitions (they were revoked: the new owner will
    /// receive the messages again). Returns how many were dropped.
    @discardableResult
    mutating func remove(_ partitions: Set<KafkaTopicPartition>) -> Int {
        let before = ready.count + parkedCount
        ready.removeAll { partitions.contains($0.topicPartition) }
        for partition in partitions {
            if let messages = parked.removeValue(forKey: partition) {
                parkedCount -= messages.count
            }
        }
        return before - (ready.count + parkedCount)
    }

    mutating func removeAll() {
        ready.removeAll()
        parked.removeAll()
        parkedCount = 0
    }
}
