import NIOCore

extension WorkerCore {
    /// Graceful shutdown: no more lane slots; in-flight notifications finish (replays included);
    /// then every held retry, delayed send and parked notification goes to the retry topic;
    /// `promise` succeeds once Kafka acknowledged every record, or after `budget` whatever is left.
    ///
    /// Queued lane work is left alone: its jobs stay open, so their offsets are not committed and
    /// the next owner of the partition sends them (duplicates limited to the job's notifications
    /// already sent). At-least-once holds on every path, including the deadline.
    func beginDrain(within budget: Duration, promise: EventLoopPromise<Void>) {
        guard phase == .running else {
            promise.succeed()
            return
        }
        phase = .draining
        drainPromise = promise
        drainDeadlineTask = eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(budget.nanoseconds)) { [self] in
            logger.warning("drain deadline reached", metadata: ["in-flight": "\(inFlight)", "records": "\(pendingRecords)"])
            finishDrain()
        }
        schedulePump()
    }

    /// Moves the drain on when in-flight work or pending records reached zero.
    func checkDrainProgress() {
        guard phase == .draining else { return }
        if !heldHandedOff {
            guard inFlight == 0, ready.isEmpty else { return }
            heldHandedOff = true
            timer?.cancel()
            timer = nil
            timerDeadline = nil
            for batch in retries.drainForShutdown() { handOff(batch) }
            for batch in delayedSends.drainForShutdown() { handOff(batch) }
            for batch in drainParked() { handOff(batch) }
        }
        if pendingRecords == 0 { finishDrain() }
    }

    private func finishDrain() {
        guard phase != .finished else { return }
        phase = .finished
        drainDeadlineTask?.cancel()
        drainDeadlineTask = nil
        timer?.cancel()
        timer = nil
        publishStatistics()
        drainPromise?.succeed()
        drainPromise = nil
    }

    /// After the engine closed the consumers and the publisher: stops the statistics timer.
    func stop() {
        statisticsTask?.cancel()
        statisticsTask = nil
        publishStatistics()
        for summary in warnings.remainingSummaries(now: clock.now) { logger.log(summary) }
    }
}
