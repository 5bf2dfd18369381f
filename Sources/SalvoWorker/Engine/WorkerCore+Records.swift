import Logging
import NIOCore
import SalvoKafka
import SalvoPrimitives

extension WorkerCore {
    /// How long a record Kafka refused waits before it is produced again.
    static var republishDelay: TimeAmount { .milliseconds(200) }

    /// Hands a record to the publisher task. The caller has counted it in the ledger (or does so
    /// in the same event-loop turn): acknowledgements always arrive in a later turn.
    func publish(_ pending: PendingRecord) {
        records.onPublished()
        seams.publish(pending)
    }

    /// `countsNotification`: a rejected token, which is a notification finished by its dead letter
    /// only in the sense that the ledger opened the job with the record already counted.
    func publishDeadLetter(
        _ record: DeadLetterRecord, source: SourcePosition, generation: JobLedger.Generation, countsNotification: Bool,
        tokenIndices: [Int32] = []
    ) {
        if countsNotification {
            statistics.deadLettered += 1
            metrics.notification(app: record.app ?? "", outcome: "dead_lettered", reason: record.reason.metricLabel)
        }
        metrics.deadLetter(reason: record.reason.metricLabel)
        publish(
            PendingRecord(
                kind: .deadLetter, topic: configuration.topics.deadLetter, record: record.record(), source: source,
                generation: generation,
                tokenIndices: tokenIndices))
    }

    /// Writes notifications the worker cannot hold (memory bound, too far ahead, or shutdown) to
    /// the retry topic, one record per job and attempt, each finishing its notifications in the
    /// ledger with the record counted once.
    func handOff(_ batch: RetryScheduler.StateMachine<C>.Batch) {
        let dueAt = UTCTimestamp(
            millisecondsSince1970: UTCTimestamp.now().millisecondsSince1970
                + max(0, clock.now.duration(to: batch.due).nanoseconds / 1_000_000))
        for record in RetryRecord.grouping(batch.notifications, dueAt: dueAt) {
            let job = record.job
            // Per-user work goes back to the per-user topic, so it returns through the per-user
            // lane instead of waiting behind campaigns in the retry topic.
            let topic =
                job.source.topic == configuration.topics.priority
                ? configuration.topics.priority : configuration.topics.retry
            publish(
                PendingRecord(
                    kind: .retry, topic: topic, record: record.record(), source: job.source,
                    generation: job.ledgerGeneration,
                    tokenIndices: record.tokenIndices))
            statistics.handedOff += record.tokens.count
            metrics.notification(
                app: record.job.app, outcome: "retry_handed_off", reason: "", count: record.tokens.count)
            // The record counts once for the job, and once for each of its tokens' checkpoint.
            for (position, index) in record.tokenIndices.enumerated() {
                ledgerAction(
                    ledger.notificationFinished(
                        job.source, generation: job.ledgerGeneration, records: position == 0 ? 1 : 0, index: index,
                        tokenRecords: 1))
            }
        }
    }

    /// Kafka's answer for one record, on this loop. A refusal that may pass (broker unreachable,
    /// timed out, leader moving) is produced again after a pause, the job's offset waiting for it;
    /// a permanent one (too large, not authorized) is replaced by a body-less dead letter, and if
    /// that is refused for good too, the record is abandoned so the partition moves on.
    func recordDelivered(_ pending: PendingRecord, _ result: Result<KafkaDeliveryReport, KafkaError>) {
        if pending.kind == .progress {
            // No job's completion waits for a checkpoint; a lost one costs duplicates after a
            // crash, and the next one replaces it. Its jobs' unconfirmed sends wait for it.
            records.onSettledWithoutResuming()
            if case .failure(let error) = result {
                warnRepeated("checkpoint not written", key: "checkpoint-refused", metadata: ["error": "\(error)"])
            }
            checkpointAnswered(pending.generation, succeeded: (try? result.get()) != nil)
            checkDrainProgress()
            return
        }
        switch result {
        case .success:
            switch pending.kind {
            case .feedback: statistics.feedbackAcknowledged += 1
            case .deadLetter: statistics.deadLettersAcknowledged += 1
            case .retry: statistics.retryRecordsAcknowledged += 1
            case .progress: break
            }
            recordSettled(pending)
        case .failure(let error):
            statistics.produceFailures += 1
            metrics.produceFailure(topic: pending.topic)
            guard !lifecycle.isFinished else {
                records.onSettledWithoutResuming()
                return
            }
            if error.isPermanent {
                refusedForGood(pending, error)
                return
            }
            warnRepeated(
                "record not acknowledged, producing it again", key: "produce-retry",
                metadata: ["topic": "\(pending.topic)", "error": "\(error)"])
            eventLoop.assumeIsolated().scheduleTask(in: Self.republishDelay) { [publish = seams.publish] in
                publish(pending)
            }
        }
    }

    private func refusedForGood(_ pending: PendingRecord, _ error: KafkaError) {
        guard !pending.isBodyless else {
            // The last resort: the dead letter itself is lost, the notification is not (its job
            // is still in its source partition, which the body-less dead letter would have named).
            statistics.recordsAbandoned += 1
            metrics.recordAbandoned(topic: pending.topic)
            warnRepeated(
                "dead letter refused for good, abandoned so its partition can commit", key: "produce-abandoned",
                metadata: [
                    "topic": "\(pending.topic)", "error": "\(error)",
                    "source": "\(pending.source.topic)/\(pending.source.partition)@\(pending.source.offset)",
                ])
            recordSettled(pending)
            return
        }
        statistics.deadLettersWithoutBody += 1
        metrics.deadLetterWithoutBody(refusedTopic: pending.topic)
        warnRepeated(
            "record refused for good, writing a dead letter without its body", key: "produce-refused",
            metadata: ["topic": "\(pending.topic)", "error": "\(error)", "bytes": "\(pending.record.value.count)"])
        let replacement = BodylessDeadLetter.record(
            replacing: pending, error: error.rdKafkaErrorName ?? error.code.description,
            deadLetterTopic: configuration.topics.deadLetter)
        // Counted already: the pending count and the ledger's record stay as they are.
        seams.publish(replacement)
    }

    /// A record is done with (acknowledged or abandoned): its job may complete, a drain may end,
    /// and intake paused on a full records queue resumes once it is half empty.
    private func recordSettled(_ pending: PendingRecord) {
        let waiters = records.onSettled()
        ledgerAction(
            ledger.recordAcknowledged(pending.source, generation: pending.generation, indices: pending.tokenIndices))
        if !waiters.isEmpty {
            for waiter in waiters { waiter() }
            schedulePump()
        }
        checkDrainProgress()
    }

    /// Logs a warning the first time, then at most one line with a count per interval.
    func warnRepeated(_ message: Logger.Message, key: String, metadata: Logger.Metadata) {
        guard let metadata = records.onRefused(key, now: clock.now).metadata(metadata) else { return }
        logger.warning(message, metadata: metadata)
    }
}
