import NIOCore
import SalvoKafka

extension WorkerCore {
    /// How long a record Kafka refused waits before it is produced again.
    static let republishDelay = TimeAmount.milliseconds(200)

    /// Hands a record to the publisher task. The caller has counted it in the ledger (or does so
    /// in the same event-loop turn): acknowledgements always arrive in a later turn.
    func publish(_ pending: PendingRecord) {
        pendingRecords += 1
        publisher.yield(pending)
    }

    /// `countsNotification`: a rejected token, which is a notification finished by its dead letter
    /// only in the sense that the ledger opened the job with the record already counted.
    func publishDeadLetter(_ record: DeadLetterRecord, source: SourcePosition, generation: JobLedger.Generation, countsNotification: Bool) {
        if countsNotification {
            statistics.deadLettered += 1
            metrics.notification(app: record.app ?? "", outcome: "dead_lettered", reason: record.reason.code)
        }
        metrics.deadLetter(reason: record.reason.code)
        publish(PendingRecord(kind: .deadLetter, topic: configuration.topics.deadLetter, record: record.record(), source: source, generation: generation))
    }

    /// Writes notifications the worker cannot hold (memory bound, too far ahead, or shutdown) to
    /// the retry topic, one record per job and attempt, each finishing its notifications in the
    /// ledger with the record counted once.
    func handOff(_ batch: RetryScheduler.StateMachine<ContinuousClock>.Batch) {
        let dueAt = UTCTimestamp(millisecondsSince1970: UTCTimestamp.now().millisecondsSince1970 + max(0, clock.now.duration(to: batch.due).nanoseconds / 1_000_000))
        for record in RetryRecord.grouping(batch.notifications, dueAt: dueAt) {
            let job = record.job
            publish(PendingRecord(kind: .retry, topic: configuration.topics.retry, record: record.record(), source: job.source, generation: job.ledgerGeneration))
            statistics.handedOff += record.tokens.count
            metrics.notification(app: record.job.app, outcome: "retry_handed_off", reason: "", count: record.tokens.count)
            for index in record.tokens.indices {
                notificationFinished(job, records: index == 0 ? 1 : 0)
            }
        }
    }

    /// Kafka's answer for one record, on this loop. A refusal is produced again after a pause;
    /// the job's offset waits for it.
    func recordDelivered(_ pending: PendingRecord, _ result: Result<KafkaDeliveryReport, KafkaError>) {
        switch result {
        case .success:
            pendingRecords -= 1
            switch pending.kind {
            case .feedback: statistics.feedbackAcknowledged += 1
            case .deadLetter: statistics.deadLettersAcknowledged += 1
            case .retry: statistics.retryRecordsAcknowledged += 1
            }
            ledgerAction(ledger.recordAcknowledged(pending.source, generation: pending.generation))
            checkDrainProgress()
        case .failure(let error):
            statistics.produceFailures += 1
            metrics.produceFailure(topic: pending.topic)
            guard phase != .finished else {
                pendingRecords -= 1
                return
            }
            logger.warning("record not acknowledged, producing it again", metadata: ["topic": "\(pending.topic)", "error": "\(error)"])
            eventLoop.assumeIsolated().scheduleTask(in: Self.republishDelay) { [publisher] in
                publisher.yield(pending)
            }
        }
    }
}
