import Logging
import Synchronization

extension RDKafkaClient {
    /// Writes a line unless a line of the same `kind` was written within the throttle's interval
    /// (``LogThrottle``); left-out lines are counted into a summary that ``writeLogSummaries(final:)``
    /// writes. `detail` (default: the message) is what a summary quotes as the latest occurrence.
    ///
    /// Debug and trace lines are never held back: whoever turns them on wants every one.
    func log(
        _ level: Logger.Level, _ message: String, kind: String, detail: String? = nil, metadata: Logger.Metadata = [:]
    ) {
        guard logger.logLevel <= level else { return }
        guard level >= .info else {
            logger.log(level: level, "\(message)", metadata: metadata)
            return
        }
        let now = ContinuousClock.now
        let decision = Self.logThrottle.withLock {
            $0.shouldLog(kind, level: level, detail: detail ?? message, now: now)
        }
        guard let metadata = decision.metadata(metadata) else { return }
        logger.log(level: level, "\(message)", metadata: metadata)
    }

    /// One line per kind whose interval passed with lines left out, at the most severe level among
    /// them. Every loop calls it on every iteration (whichever comes first writes a summary), and
    /// with `final` before its client is destroyed: then every pending count is written, so none
    /// is lost when the process ends. (A storm another client is still in merely starts over: its
    /// next line is written at once.)
    func writeLogSummaries(final: Bool = false) {
        let now = ContinuousClock.now
        let summaries = Self.logThrottle.withLock { throttle in
            final ? throttle.remainingSummaries(now: now) : throttle.dueSummaries(now: now)
        }
        for summary in summaries { logger.log(summary) }
    }
}
