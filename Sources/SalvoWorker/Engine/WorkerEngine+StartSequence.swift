import NIOCore
import SalvoAPNs
import SalvoKafka
import ServiceLifecycle

/// The worker's start, step by step (``WorkerStartStep``): each part is recorded in
/// ``StartedParts`` as soon as it exists, so a failure at any later step, or an order to stop
/// before the worker runs, stops every part already started, the last started first.
extension WorkerEngine {
    /// What a finished start hands to the running worker.
    struct Started: Sendable {
        var producer: KafkaProducer
        var control: CampaignControlFollower?
        var consumers: Consumers
        var pools: [WorkerPoolKey: APNsConnectionPool]
        var core: NIOLoopBound<WorkerCore<ContinuousClock>>
        var records: AsyncStream<PendingRecord>
        var publisher: AsyncStream<PendingRecord>.Continuation
    }

    /// Told to stop (graceful shutdown or cancellation) between two start steps: what started is
    /// stopped and ``run()`` returns, as after a drain.
    struct StartInterrupted: Error {}

    /// Starts every part up to the dispatch core; the caller stops `parts` if this throws.
    func start(_ parts: inout StartedParts) async throws -> Started {
        var producerConfiguration = KafkaProducerConfiguration(client: configuration.kafka)
        producerConfiguration.properties = configuration.kafkaProducerProperties
        let kafkaMetrics = WorkerKafkaMetrics(topics: configuration.topics)
        let producer = try KafkaProducer(
            configuration: producerConfiguration, logger: logger, observer: kafkaMetrics.producerObserver)
        parts.started(.producer) { await producer.shutdown(timeout: .seconds(1)) }
        try await finished(.producer)
        // Nothing is read before the state topics and a new group's backlog are checked.
        try await checkStateTopics()
        try await finished(.stateTopics)
        try await checkNewGroups()
        try await finished(.newGroups)
        // Read before the consumers join: a partition resumed after a crash finds its checkpoint.
        let (checkpointFollower, checkpoints) = try await startCheckpoints()
        if let checkpointFollower { parts.started(.checkpoints) { await checkpointFollower.close() } }
        try await finished(.checkpoints)
        // The consumers exist before the core (whose `markDone` calls them); their revoke barrier
        // and commit reports reach the core through this once it is made.
        let coreBox = CoreBox()
        // Read to its end before the consumers join: no job is taken before the commands in force are known.
        let control = try await startCampaignControl(coreBox)
        if let control { parts.started(.campaignControl) { await control.close() } }
        try await finished(.campaignControl)
        let consumers = try makeConsumers(coreBox)
        parts.started(.consumers) { [logger] in await Self.close(consumers, logger: logger) }
        try await finished(.consumers)
        let providers = try APNsTokenProviderRegistry(clock: ContinuousClock())
        try await finished(.tokenProviders)
        let broadcastSender = try makeBroadcastSender(providers)
        parts.started(.broadcastSender) { await broadcastSender.shutdown() }
        try await finished(.broadcastSender)
        let pools = try makePools(providers, recordingIn: &parts)
        try await finished(.pools)
        let (records, publisher) = AsyncStream.makeStream(of: PendingRecord.self)
        let core = try await makeCore(
            consumers: consumers, pools: pools, publisher: publisher, checkpoints: checkpoints)
        parts.started(.core) { [eventLoop] in
            publisher.finish()
            try? await eventLoop.submit { core.value.stop() }.get()
        }
        try await attach(broadcastSender, to: core)
        coreBox.set(core)
        await applyInitialControl(control, core: core)
        try await finished(.core)
        return Started(
            producer: producer, control: control, consumers: consumers, pools: pools, core: core, records: records,
            publisher: publisher)
    }

    /// Ends a start step: ``StartStepFinished`` may fail it, and a worker told to stop meanwhile
    /// goes no further.
    private func finished(_ step: WorkerStartStep) async throws {
        try await startStepFinished?(step)
        if Task.isCancelled || Task.isShuttingDownGracefully { throw StartInterrupted() }
    }
}
