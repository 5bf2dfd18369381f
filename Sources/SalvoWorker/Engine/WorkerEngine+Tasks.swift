import NIOCore
import SalvoKafka

/// The engine's long-running tasks: one per lane consumer, the records publisher, the assignment
/// watchers and the lag sampler (split from `WorkerEngine.swift` to keep files short).
extension WorkerEngine {
    // MARK: Tasks

    /// Most records per hand-over to the core, and the message bytes after which a batch ends
    /// (a lane may overshoot its capacity by one batch: at most a megabyte of jobs).
    static let handOverRecords = 64
    static let handOverBytes = 1 << 20

    /// One lane: pull, decode here (off the core's loop), hand over, and wait while the lane is
    /// full. Ends when cancelled (drain) or when the consumer fails, which stops the engine.
    static func consume(
        _ consumer: KafkaConsumer, intake: LaneIntake, core: NIOLoopBound<WorkerCore<ContinuousClock>>,
        loop: any EventLoop, signal: ShutdownSignal
    ) async {
        do {
            var messages = consumer.messages.makeAsyncIterator()
            while let first = try await messages.next() {
                // A record taken but not handed over stays uncommitted: the next owner gets it.
                if Task.isCancelled { break }
                // What has already arrived goes over as one batch: a hand-over per record would
                // wake the event loop and then this task once per per-user push.
                // Room for the whole batch at once: grown from one element by doubling, the array
                // was reallocated a few times per hand-over (~480 instructions per per-user push).
                var records: [DecodedRecord] = []
                records.reserveCapacity(Self.handOverRecords)
                records.append(intake.decode(first))
                var bytes = first.payload.readableBytes
                while records.count < Self.handOverRecords, bytes < Self.handOverBytes,
                    let message = try messages.nextBuffered()
                {
                    records.append(intake.decode(message))
                    bytes += message.payload.readableBytes
                }
                let batch = records
                await withCheckedContinuation { (resume: CheckedContinuation<Void, Never>) in
                    loop.execute { core.value.accept(batch, resume: { resume.resume() }) }
                }
            }
        } catch {
            signal.fire(error: error)
        }
    }

    /// Feeds records to the producer in order; each acknowledgement hops back to the core.
    static func publish(
        _ records: AsyncStream<PendingRecord>, producer: KafkaProducer, core: NIOLoopBound<WorkerCore<ContinuousClock>>,
        loop: any EventLoop
    ) async {
        for await pending in records {
            let message = KafkaProducerMessage(
                topic: pending.topic, key: pending.record.key, value: pending.record.value,
                headers: pending.record.headers.map { KafkaHeader(key: $0.name, value: $0.value) })
            do {
                try await producer.enqueue(message) { result in
                    loop.execute { core.value.recordDelivered(pending, result) }
                }
            } catch {
                loop.execute { core.value.recordDelivered(pending, .failure(error)) }
            }
        }
    }

    static func watchAssignments(
        of consumer: KafkaConsumer, core: NIOLoopBound<WorkerCore<ContinuousClock>>, loop: any EventLoop,
        publishReadiness: @Sendable () -> Void
    ) async {
        for await change in consumer.assignmentChanges {
            publishReadiness()
            guard case .revoked(let partitions) = change else { continue }
            let revoked = Set(partitions.map { SourcePosition.Partition(topic: $0.topic, partition: $0.partition) })
            loop.execute {
                core.value.revoked(revoked)
                core.value.metrics.removeConsumerLag(partitions)
            }
        }
    }

    /// `salvo_consumer_lag`, every 5 s, for the partitions still assigned when it is recorded.
    static func sampleLag(
        _ consumers: Consumers, core: NIOLoopBound<WorkerCore<ContinuousClock>>, loop: any EventLoop
    ) async {
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: .seconds(5))
            } catch {
                return
            }
            var lags: [KafkaPartitionLag] = []
            for consumer in consumers.all {
                lags += (try? await consumer.lag()) ?? []
            }
            let sampled = lags
            loop.execute {
                let assigned = consumers.all.reduce(into: Set<KafkaTopicPartition>()) { $0.formUnion($1.assignment) }
                core.value.metrics.consumerLag(sampled, assigned: assigned)
            }
        }
    }
}
