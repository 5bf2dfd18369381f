import Logging
import NIOCore
import SalvoKafka

/// Campaign control and progress around the core (docs/campaigns.md): the control topic is read
/// to its end before the job consumers join, so a worker started after a cancel never sends the
/// cancelled campaign; changes then hop to the core's loop as they come. Progress goes to
/// `salvo.campaigns` about every second.
extension WorkerEngine {
    /// How long the start waits for the control topic to be read to its end.
    static var controlCatchUpTimeout: Duration { .seconds(30) }

    /// Starts following the control topic and waits until it is read to its end. With
    /// `topics.control: null` the worker runs without campaign control (``checkStateTopics()``
    /// said so); a missing topic, or one that cannot be read in time, stops the start, since
    /// taking jobs then could send what an operator cancelled.
    func startCampaignControl(_ coreBox: CoreBox) async throws -> CampaignControlFollower? {
        guard configuration.topics.followsControl else { return nil }
        let loop = eventLoop
        let follower = try CampaignControlFollower(
            topic: configuration.topics.control, client: configuration.kafka, logger: logger
        ) { state in
            // Before the core exists, changes are not lost: the core starts from `current`.
            guard let core = coreBox.core else { return }
            loop.execute { core.value.controlChanged(state) }
        }
        do {
            try await whenKafkaAnswers(configuration.topics.control) { () throws(KafkaError) in
                try await follower.start()
            }
        } catch let error as KafkaError where error.code == .unknownTopic {
            await follower.close()
            throw SalvoWorkerError.refusedToStart(
                "topic \(configuration.topics.control) (topics.control) does not exist: create it with salvo topics create, or set topics.control: null (runs without campaign control)"
            )
        } catch {
            await follower.close()
            throw error
        }
        do {
            let state = try await follower.caughtUp(timeout: Self.controlCatchUpTimeout)
            logger.info("campaign control read", metadata: ["commands": "\(state.commands.count)"])
        } catch {
            await follower.close()
            throw error
        }
        return follower
    }

    /// Gives the core the commands in force before it takes its first job.
    func applyInitialControl(
        _ follower: CampaignControlFollower?, core: NIOLoopBound<WorkerCore<ContinuousClock>>
    ) async {
        guard let follower else { return }
        try? await eventLoop.submit { core.value.controlChanged(follower.current) }.get()
    }

    /// Publishes the core's per-campaign counts every second on the records producer until
    /// cancelled (after the drain), then once more. Only with campaign control on: both topics are
    /// made together.
    func startCampaignProgress(
        _ follower: CampaignControlFollower?, producer: KafkaProducer, core: NIOLoopBound<WorkerCore<ContinuousClock>>
    ) -> Task<Void, Never>? {
        guard follower != nil else { return nil }
        let loop = eventLoop
        let publisher = CampaignProgressPublisher(
            topic: configuration.topics.campaigns, producer: producer, logger: logger
        ) { now in
            (try? await loop.submit { core.value.campaigns.takeChangedProgress(now: now) }.get()) ?? []
        }
        return Task { await publisher.run() }
    }
}
