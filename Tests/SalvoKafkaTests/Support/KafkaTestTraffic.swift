import SalvoKafka
import Testing

/// Producing and collecting test traffic with bounded waits.
enum KafkaTestTraffic {
    /// The value of message `index`: unique and recognisable.
    static func value(_ index: Int) -> [UInt8] {
        Array("message-\(index)".utf8)
    }

    static func index(of message: KafkaConsumerMessage) -> Int? {
        let text = String(decoding: message.value, as: UTF8.self)
        guard text.hasPrefix("message-") else { return nil }
        return Int(text.dropFirst("message-".count))
    }

    /// Produces `count` messages with the idempotent producer, spread round-robin over
    /// `partitions` explicit partitions (or left to the partitioner when `nil`), and checks that
    /// every delivery report is a success.
    @discardableResult
    static func produce(
        _ cluster: KafkaTestCluster,
        topic: String,
        count: Int,
        partitions: Int? = nil,
        first: Int = 0
    ) async throws -> [KafkaDeliveryReport] {
        let producer = try KafkaProducer(
            configuration: KafkaProducerConfiguration(client: cluster.clientConfiguration()),
            logger: KafkaTestCluster.logger
        )
        do {
            let reports = try await withThrowingTaskGroup(of: KafkaDeliveryReport.self) { group in
                for index in first..<(first + count) {
                    let message = KafkaProducerMessage(
                        topic: topic,
                        partition: partitions.map { Int32(index % $0) },
                        key: Array("key-\(index)".utf8),
                        value: value(index)
                    )
                    group.addTask { try await producer.send(message) }
                }
                var reports: [KafkaDeliveryReport] = []
                for try await report in group { reports.append(report) }
                return reports
            }
            await producer.shutdown()
            #expect(reports.count == count)
            return reports
        } catch {
            await producer.shutdown()
            throw error
        }
    }

    /// Reads from `consumer` until `isComplete` says so or `timeout` passes (then returns what
    /// arrived, for the caller's expectations to report). Marks each message done unless
    /// `shouldMarkDone` says otherwise.
    static func collect(
        from consumer: KafkaConsumer,
        timeout: Duration,
        shouldMarkDone: @escaping @Sendable (KafkaConsumerMessage) -> Bool = { _ in true },
        until isComplete: @escaping @Sendable ([KafkaConsumerMessage]) -> Bool
    ) async throws -> [KafkaConsumerMessage] {
        try await withThrowingTaskGroup(of: [KafkaConsumerMessage]?.self) { group in
            group.addTask {
                var collected: [KafkaConsumerMessage] = []
                for try await message in consumer.messages {
                    collected.append(message)
                    if shouldMarkDone(message) { consumer.markDone(message) }
                    if isComplete(collected) { break }
                }
                return collected
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            var collected: [KafkaConsumerMessage] = []
            while let result = try await group.next() {
                if let result {
                    collected = result
                    group.cancelAll()
                    break
                }
                group.cancelAll()
            }
            return collected
        }
    }

    /// Waits until `condition` holds, checking every 50 ms, for at most `timeout`.
    static func eventually(timeout: Duration, _ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return try await condition()
    }
}
