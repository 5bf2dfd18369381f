import Logging
import SalvoKafka
import ServiceLifecycle

/// What the engine reads before its consumers join: job checkpoints, and (``startCampaignControl``)
/// campaign control. Both wait for a broker that does not answer yet, as the consumers would: a
/// worker started during a Kafka outage stays up, not ready, and starts once Kafka is back.
extension WorkerEngine {
    /// Runs `start` until it succeeds, fails for another reason than Kafka not answering, or the
    /// worker is asked to stop (then `CancellationError`). One warning, then one every 30 s.
    func whenKafkaAnswers<T>(_ what: String, _ start: () async throws(KafkaError) -> T) async throws -> T {
        var failures = 0
        while true {
            let failure: KafkaError
            do {
                return try await start()
            } catch {
                failure = error
            }
            // Wrong credentials are not waited out: the operator must change them (exit 78).
            guard failure.code != .unknownTopic, failure.code != .authenticationFailed, !failure.isPermanent,
                !failure.isFatal
            else { throw failure }
            failures += 1
            if failures == 1 || failures % 6 == 0 {
                logger.warning(
                    "waiting for Kafka before taking jobs", metadata: ["reading": "\(what)", "error": "\(failure)"])
            }
            guard !Task.isShuttingDownGracefully, !Task.isCancelled else { throw CancellationError() }
            try await Task.sleep(for: .seconds(5))
        }
    }

    /// Follows the progress topic for job checkpoints (``checkStateTopics()`` verified it). With
    /// `topics.progress: null` the worker runs without checkpoints: it then re-sends a partly
    /// sent job whole after a crash. A topic not read to its end in 15 s is followed all the
    /// same: checkpoints recorded meanwhile are found once read.
    func startCheckpoints() async throws -> (CheckpointFollower?, CheckpointAccess) {
        guard configuration.topics.keepsCheckpoints else { return (nil, .none) }
        let groups = [configuration.groupID, configuration.groupID + ".priority"]
        let priorityTopic = configuration.topics.priority
        let follower = try CheckpointFollower(
            topic: configuration.topics.progress, groups: Set(groups), priorityGroup: groups[1],
            client: configuration.kafka, logger: logger)
        do {
            try await whenKafkaAnswers(configuration.topics.progress) { () throws(KafkaError) in
                try await follower.start(timeout: .seconds(10))
            }
        } catch let error as KafkaError where error.code == .unknownTopic {
            await follower.close()
            throw SalvoWorkerError.refusedToStart(
                "topic \(configuration.topics.progress) (topics.progress) does not exist: create it with salvo topics create, or set topics.progress: null (runs without job checkpoints)"
            )
        } catch {
            await follower.close()
            throw error
        }
        if await !follower.waitUntilCaughtUp(timeout: .seconds(15)) {
            logger.warning(
                "job checkpoints not read to their end in 15 s; following them anyway",
                metadata: ["topic": "\(configuration.topics.progress)"])
        }
        let access = CheckpointAccess(
            lookup: { follower.checkpoint(for: $0) }, newestWrite: { follower.newestWrite(of: $0) },
            topic: configuration.topics.progress, group: { $0.topic == priorityTopic ? groups[1] : groups[0] })
        return (follower, access)
    }
}
