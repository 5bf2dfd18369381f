import SalvoAPNs

extension WorkerCore {
    /// One request's outcome, on the pool's (this) event loop; `slot` is its pool's.
    ///
    /// `item` points into its dispatch batch, which outlives the call. Why a pointer: a
    /// `DispatchItem` (~160 bytes) passed by value is copied out of the batch's storage first
    /// (the core might change that storage during the call), with a retain and release of each
    /// of its references (measured: ~180 instructions per notification). The accepted answer
    /// reads only what it needs in place; the rarer outcomes copy the item.
    func completed(_ item: UnsafePointer<DispatchItem>, _ outcome: APNsOutcome, slot: Int) {
        dispatch.onAnswer()
        guard !lifecycle.isFinished else { return }
        // The common answer first: an accepted notification to a healthy pool is one count.
        // Through `recordHealth` the outcome was copied for its switch (~80 instructions).
        if case .accepted = outcome, pools.slots[slot].health.countAnswerIfHealthy() {
            delivered(item)
            scheduleRefill()
            return
        }
        if recordHealth(outcome, slot: slot) {
            park(item.pointee, slot: slot)
            scheduleRefill()
            return
        }
        switch outcome {
        case .accepted:
            delivered(item)
        case .rejected(let response):
            let item = item.pointee
            handle(classifier.classify(.rejected(response), of: item.notification, at: .now()), of: item)
        case .failed(let error):
            let item = item.pointee
            handle(classifier.classify(DeliveryResult(.failure(error)), of: item.notification, at: .now()), of: item)
        }
        scheduleRefill()
    }

    private func delivered(_ item: UnsafePointer<DispatchItem>) {
        // Read in place through the shared job (`notification.job` would copy the reference:
        // a retain and release per string in it, per notification).
        let shared = item.pointee.notification.shared
        statistics.delivered += 1
        metrics.delivered(app: shared.job.app)
        if let enqueued = item.pointee.enqueuedAtMilliseconds {
            let elapsed = UTCTimestamp.now().millisecondsSince1970 - enqueued
            metrics.latency(lane: item.pointee.metricsLane, nanoseconds: max(0, elapsed) * 1_000_000)
        }
        ledgerAction(
            ledger.notificationFinished(
                shared.job.source, generation: shared.job.ledgerGeneration, index: item.pointee.notification.index))
        if shared.job.campaignID != nil { countCampaign(.accepted, of: item.pointee.notification) }
    }

    /// Executes the classifier's decision (Apple's retry matrix) for one notification.
    func handle(_ outcome: Outcome, of item: DispatchItem) {
        let notification = item.notification
        switch outcome {
        case .delivered:
            withUnsafePointer(to: item) { delivered($0) }
        case .permanentFailure(let feedback, let deadLetter):
            var records = 0
            if let feedback {
                statistics.invalidTokens += 1
                metrics.notification(app: feedback.app, outcome: "invalid_token", reason: feedback.reason.metricLabel)
                publish(
                    PendingRecord(
                        kind: .feedback, topic: configuration.topics.feedback, record: feedback.record(),
                        source: notification.job.source,
                        generation: notification.job.ledgerGeneration, tokenIndices: [notification.index]))
                metrics.feedbackEvent(app: feedback.app, reason: feedback.reason.metricLabel)
                records += 1
            }
            if let deadLetter {
                statistics.deadLettered += 1
                metrics.notification(
                    app: notification.job.app, outcome: "dead_lettered", reason: deadLetter.metricLabel)
                let record = DeadLetterRecord.failedNotification(notification, reason: deadLetter, at: .now())
                publishDeadLetter(
                    record, source: notification.job.source, generation: notification.job.ledgerGeneration,
                    countsNotification: false,
                    tokenIndices: [notification.index])
                records += 1
            }
            notificationFinished(notification, records: records)
            if notification.shared.job.campaignID != nil {
                // One outcome per notification: its feedback when it has one.
                let afterSending = deadLetter?.code != DeadLetterReason.invalidRequestCode
                countCampaign(
                    feedback.map { .feedback(reason: $0.reason.string) } ?? .deadLettered(afterSending: afterSending),
                    of: notification)
            }
        case .retry(let reason):
            if notification.shared.job.campaignID != nil { countCampaign(.retryScheduled, of: notification) }
            switch waitingWork.retries.schedule(notification, reason: reason, now: clock.now) {
            case .held(_, let rearm):
                statistics.retried += 1
                metrics.notification(app: notification.job.app, outcome: "retry_scheduled", reason: reason.metricLabel)
                if rearm { armTimer() }
            case .handOff(let batch):
                handOff(batch)
            }
        case .replayNow:
            statistics.replayed += 1
            metrics.notification(
                app: notification.job.app, outcome: "replayed", reason: RetryReason.Kind.notSent.rawValue)
            waitingWork.ready.append(
                DispatchItem(
                    notification: notification.replayed(), metricsLane: item.metricsLane,
                    enqueuedAtMilliseconds: item.enqueuedAtMilliseconds))
        case .refreshTokenAndReplay:
            // The connection already asked its token provider for a fresh token when it saw the
            // answer; the next send carries it.
            statistics.replayed += 1
            metrics.notification(
                app: notification.job.app, outcome: "replayed", reason: APNsReason.expiredProviderToken.string)
            waitingWork.ready.append(
                DispatchItem(
                    notification: notification.retried(), metricsLane: item.metricsLane,
                    enqueuedAtMilliseconds: item.enqueuedAtMilliseconds))
        }
    }
}
