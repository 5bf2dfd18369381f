import Logging
import SalvoKafka

extension WorkerEngine {
    /// How long a drain waits between tries of a failed final commit.
    static var finalCommitRetryDelay: Duration { .milliseconds(500) }

    /// Commits each lane consumer's done offsets at the end of a drain, trying again until
    /// `deadline` while the commit fails (a rebalance under way answers `REBALANCE_IN_PROGRESS`
    /// or `ILLEGAL_GENERATION` for a while). Returns the error the worker exits with when a
    /// commit still failed: one line naming the group, what its next owner reads again and
    /// whether it sends any of it again (`checkpointed`: the drain's final checkpoints, which
    /// record those records complete, were acknowledged).
    static func commitAtShutdown(
        _ consumers: Consumers, until deadline: ContinuousClock.Instant, checkpointed: Bool, logger: Logger
    ) async -> SalvoWorkerError? {
        var failures: [String] = []
        for consumer in consumers.all {
            var tries = 0
            while true {
                tries += 1
                do {
                    try await consumer.commitNow()
                    break
                } catch {
                    guard ContinuousClock.now.advanced(by: finalCommitRetryDelay) < deadline else {
                        let done = consumer.progress().values.reduce(0) { $0 + $1.doneCount }
                        failures.append(
                            "group \(consumer.configuration.groupID): \(error.message) after \(tries) tries, "
                                + "\(done) completed records above its committed offsets")
                        break
                    }
                    logger.warning(
                        "commit at shutdown failed, trying again",
                        metadata: ["group": "\(consumer.configuration.groupID)", "error": "\(error)"])
                    try? await Task.sleep(for: finalCommitRetryDelay)
                }
            }
        }
        guard !failures.isEmpty else { return nil }
        let consequence =
            checkpointed
            ? "the next owner reads them again and sends none of them: the progress topic records them complete"
            : "the next owner reads them again and sends them again: their final checkpoints were not acknowledged"
        return SalvoWorkerError(
            code: .finalCommitFailed,
            message: "final offset commit failed (\(failures.joined(separator: "; "))); \(consequence)")
    }
}
