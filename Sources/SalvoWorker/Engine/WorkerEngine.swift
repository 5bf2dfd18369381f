import Logging
import Metrics
import NIOCore
import SalvoAPNs
import SalvoHTTP2
import SalvoKafka
import ServiceLifecycle
import Synchronization

/// The worker: Kafka in, APNs out, feedback back — at least once, bounded, fair.
///
/// A swift-service-lifecycle `Service`. ``run()`` connects two consumers (the per-user lane in
/// group `<groupID>.priority`; the campaign lane and the retry topic in group `<groupID>`, so a
/// full campaign lane never holds per-user records back in a shared buffer), one idempotent
/// producer for feedback, dead letters and retry hand-offs, and one APNs pool per app and
/// environment, all pools on the event loop of the dispatch core (``WorkerCore``). It runs until
/// graceful shutdown (SIGTERM in a `ServiceGroup`) or cancellation, then drains within
/// ``WorkerConfiguration/drainDeadline``: stops pulling, lets in-flight sends finish, hands held
/// retries to the retry topic, waits for Kafka's acknowledgements, commits and closes.
///
/// Offsets are committed only up to jobs whose every notification is terminal and whose records
/// Kafka acknowledged (``JobLedger``), so a crash at any moment loses nothing.
public final class WorkerEngine: Service, Sendable {
    struct Consumers: Sendable {
        var campaign: KafkaConsumer
        var priority: KafkaConsumer
        var all: [KafkaConsumer] { [priority, campaign] }
    }

    private struct State: Sendable {
        var consumers: Consumers?
        var isDraining = false
    }

    public let configuration: WorkerConfiguration
    let eventLoop: any EventLoop
    let eventLoopGroup: any EventLoopGroup
    let logger: Logger
    private let intake: LaneIntake
    let startStepFinished: StartStepFinished?
    private let state = Mutex(State())
    private let latestStatistics = Mutex(WorkerStatistics())
    private let liveness = Mutex(WorkerLiveness())

    /// Called as each start step finished, before the next one: may fail the start there
    /// (``WorkerStartStep``). Tests use it to see that a failure at any step stops what started.
    package typealias StartStepFinished = @Sendable (WorkerStartStep) async throws -> Void

    /// Validates `configuration` (and builds the decoders); nothing connects before ``run()``.
    /// - Parameter eventLoopGroup: The core and every APNs pool run on one loop of it.
    public convenience init(
        configuration: WorkerConfiguration, eventLoopGroup: any EventLoopGroup, logger: Logger
    ) throws(SalvoWorkerError) {
        try self.init(
            configuration: configuration, eventLoopGroup: eventLoopGroup, logger: logger, startStepFinished: nil)
    }

    /// - Parameter startStepFinished: Awaited after each start step; what it throws fails the start.
    package init(
        configuration: WorkerConfiguration, eventLoopGroup: any EventLoopGroup, logger: Logger,
        startStepFinished: StartStepFinished?
    ) throws(SalvoWorkerError) {
        try configuration.validate()
        let jobDecoder = try JobDecoder(configuration: configuration.decoder)
        self.configuration = configuration
        self.eventLoopGroup = eventLoopGroup
        self.eventLoop = eventLoopGroup.next()
        self.logger = logger
        self.startStepFinished = startStepFinished
        self.intake = LaneIntake(
            jobDecoder: jobDecoder, retryDecoder: RetryRecordDecoder(jobDecoder: jobDecoder),
            topics: configuration.topics,
            environments: configuration.apps.mapValues { Set($0.endpoints.keys) })
    }

    /// Assigned at least one partition and not draining (`/health/ready`, and the
    /// `salvo_worker_ready` gauge, which follows every change of either).
    public var isReady: Bool {
        state.withLock { state in
            guard !state.isDraining, let consumers = state.consumers else { return false }
            return consumers.all.contains { !$0.assignment.isEmpty }
        }
    }

    /// Kafka clients created, APNs pools started, dispatch core running (`/health/started`).
    public var hasStarted: Bool {
        liveness.withLock { $0.hasStarted }
    }

    /// False only while the dispatch core's loop has stopped beating (`/health/live`,
    /// ``WorkerLiveness``).
    public var isLive: Bool {
        let now = ContinuousClock.now
        return liveness.withLock { $0.isLive(at: now) }
    }

    /// The latest snapshot (at most 50 ms old while running; final once ``run()`` returned).
    public func statistics() -> WorkerStatistics {
        latestStatistics.withLock { $0 }
    }

    public func run() async throws {
        var parts = StartedParts()
        let started: Started
        do {
            started = try await start(&parts)
        } catch {
            // Whatever the failed or interrupted start had started, the last started first.
            await parts.stopAll()
            if error is StartInterrupted { return }
            throw error
        }
        // The drain closes these in its own order: it stops pulling before it closes anything.
        parts.handOver([.producer, .consumers, .pools, .core])
        let remaining = parts
        let (producer, consumers, core) = (started.producer, started.consumers, started.core)
        state.withLock { $0.consumers = consumers }
        liveness.withLock { $0.started(at: .now) }
        // Created here, after the metrics system was bootstrapped by whoever runs the engine.
        let readiness = Gauge(label: "salvo_worker_ready")
        let publishReadiness: @Sendable () -> Void = { [weak self] in readiness.record(self?.isReady == true ? 1 : 0) }
        publishReadiness()

        let signal = ShutdownSignal()
        let loop = eventLoop
        let intake = self.intake
        let records = started.records
        let publisherTask = Task { await Self.publish(records, producer: producer, core: core, loop: loop) }
        let progressTask = startCampaignProgress(started.control, producer: producer, core: core)
        let consumerTasks = consumers.all.map { consumer in
            Task { await Self.consume(consumer, intake: intake, core: core, loop: loop, signal: signal) }
        }
        let watchers = consumers.all.map { consumer in
            Task {
                await Self.watchAssignments(of: consumer, core: core, loop: loop, publishReadiness: publishReadiness)
            }
        }
        let lagSampler = Task { await Self.sampleLag(consumers, core: core, loop: loop) }
        do {
            try await startStepFinished?(.tasks)
        } catch {
            // Running now: a failure stops the worker through the drain, as a failed consumer does.
            signal.fire(error: error)
        }

        await withTaskCancellationOrGracefulShutdownHandler {
            await signal.wait()
        } onCancelOrGracefulShutdown: {
            signal.fire()
        }

        // Unstructured so that the cancellation which may have ended the wait does not cut the
        // drain short.
        let drain = Task {
            let commitFailure = await self.drain(
                core: core, consumers: consumers, consumerTasks: consumerTasks, lagSampler: lagSampler,
                publisher: started.publisher, publisherTask: publisherTask, progressTask: progressTask,
                producer: producer, pools: started.pools, publishReadiness: publishReadiness)
            for watcher in watchers { await watcher.value }
            // The broadcast sender and the followers, once nothing in flight needs them.
            var followers = remaining
            await followers.stopAll()
            return commitFailure
        }
        let commitFailure = await drain.value
        if let error = signal.error { throw error }
        if let commitFailure {
            logger.error("\(commitFailure.message)")
            throw commitFailure
        }
    }

    // MARK: Start

    func makeConsumers(_ coreBox: CoreBox) throws(KafkaError) -> Consumers {
        let closeTimeout = min(.seconds(30), configuration.drainDeadline / 5)
        var campaign = KafkaConsumerConfiguration(
            client: configuration.kafka, groupID: configuration.groupID,
            topics: [configuration.topics.jobs, configuration.topics.retry])
        // A campaign record may hold 100,000 tokens: a few buffered records are plenty.
        campaign.bufferCapacity = 16
        campaign.closeTimeout = closeTimeout
        campaign.commitInterval = configuration.commitInterval
        campaign.properties = configuration.kafkaConsumerProperties
        // Jobs and retry records are read from their values alone.
        campaign.readsKeysAndHeaders = false
        campaign.assignmentStrategy = configuration.assignmentStrategy
        campaign.startPosition = configuration.startPosition
        var priority = KafkaConsumerConfiguration(
            client: configuration.kafka, groupID: configuration.groupID + ".priority",
            topics: [configuration.topics.priority])
        priority.closeTimeout = closeTimeout
        priority.commitInterval = configuration.commitInterval
        // A per-user push waits out an idle fetch: brokers that hold it for the whole
        // `fetch.wait.max.ms` (librdkafka's default 500 ms; Tansu does) add that to its latency.
        // 10 ms costs a fetch request per 10 ms while idle (docs/benchmarks.md); a value
        // in `kafka.consumer_properties` wins.
        priority.properties = ["fetch.wait.max.ms": "10"].merging(configuration.kafkaConsumerProperties) {
            _, configured in configured
        }
        priority.readsKeysAndHeaders = false
        priority.assignmentStrategy = configuration.assignmentStrategy
        priority.startPosition = configuration.startPosition
        let (loop, revokeWait) = (eventLoop, configuration.revokeWait)
        func consumer(
            _ settings: KafkaConsumerConfiguration, _ lane: CommitGate.Consumer
        ) throws(KafkaError) -> KafkaConsumer {
            var observer = WorkerKafkaMetrics.consumerObserver(group: settings.groupID)
            let metricsCommitted = observer.committed
            observer.committed = { duration, succeeded in
                metricsCommitted(duration, succeeded)
                guard let core = coreBox.core else { return }
                loop.execute { core.value.commitFinished(lane, succeeded: succeeded) }
            }
            let barrier = KafkaRevokeBarrier(limit: revokeWait) { partitions, done in
                guard let core = coreBox.core else { return done() }
                let revoking = Set(
                    partitions.map { SourcePosition.Partition(topic: $0.topic, partition: $0.partition) })
                loop.execute { core.value.revoking(revoking, done: done) }
            }
            return try KafkaConsumer(
                configuration: settings, logger: logger, observer: observer, revokeBarrier: barrier)
        }
        let campaignConsumer = try consumer(campaign, .campaign)
        let priorityConsumer = try consumer(priority, .priority)
        return Consumers(campaign: campaignConsumer, priority: priorityConsumer)
    }

    /// Makes and starts one pool per app and environment; each is recorded in `parts` once
    /// started, so that a failure making a later one stops the earlier ones.
    func makePools(
        _ providers: APNsTokenProviderRegistry<ContinuousClock>, recordingIn parts: inout StartedParts
    ) throws(APNsError) -> [WorkerPoolKey: APNsConnectionPool] {
        var pools: [WorkerPoolKey: APNsConnectionPool] = [:]
        for (name, app) in configuration.apps {
            // Every notification carries its deterministic apns-id, which APNs echoes: the
            // answer's copy is never read, and keeping it would cost a header block per answer.
            var poolConfiguration = app.pool
            poolConfiguration.connection.http2.keptResponseHeaders?.removeAll { $0 == "apns-id" }
            for (kind, environment) in app.endpoints {
                // Like `salvo_apns_pool_healthy`: apps sharing a key still get series of their own.
                poolConfiguration.name = "\(name)/\(kind.rawValue)"
                let pool: APNsConnectionPool
                switch app.credential {
                case .token(let credential):
                    pool = try APNsConnectionPool(
                        credential: credential, tokenProvider: try providers.provider(for: credential),
                        environment: environment,
                        configuration: poolConfiguration, eventLoop: eventLoop, logger: logger)
                case .certificate:
                    pool = try APNsConnectionPool(
                        credential: app.credential, environment: environment, configuration: poolConfiguration,
                        eventLoop: eventLoop,
                        logger: logger)
                }
                pool.start()
                parts.started(.pools) { await pool.shutdown() }
                pools[WorkerPoolKey(app: name, environment: kind)] = pool
            }
        }
        return pools
    }

    func makeCore(
        consumers: Consumers, pools: [WorkerPoolKey: APNsConnectionPool],
        publisher: AsyncStream<PendingRecord>.Continuation,
        checkpoints: CheckpointAccess
    ) async throws -> NIOLoopBound<WorkerCore<ContinuousClock>> {
        let priorityTopic = configuration.topics.priority
        let markDone: @Sendable (SourcePosition) -> Void = { source in
            let consumer = source.topic == priorityTopic ? consumers.priority : consumers.campaign
            consumer.markDone(
                KafkaTopicPartition(topic: source.topic, partition: source.partition), offset: source.offset)
        }
        let publish: @Sendable (WorkerStatistics) -> Void = { [weak self] snapshot in
            self?.latestStatistics.withLock { $0 = snapshot }
            // Every 50 ms from the core's timer: the heartbeat `/health/live` watches.
            let now = ContinuousClock.now
            self?.liveness.withLock { $0.beat(at: now) }
        }
        var checkpoints = checkpoints
        checkpoints.offsets = { partitions in
            Self.offsets(of: partitions, consumers: consumers, priorityTopic: priorityTopic)
        }
        checkpoints.allOffsets = {
            Self.offsets(of: nil, consumers: consumers, priorityTopic: priorityTopic, perUserToo: true)
        }
        let (configuration, loop, logger) = (self.configuration, self.eventLoop, self.logger)
        return try await loop.submit {
            let core = try WorkerCore(
                configuration: configuration, pools: pools.mapValues { $0 }, clock: ContinuousClock(), eventLoop: loop,
                publisher: { publisher.yield($0) }, markDone: markDone,
                sharedStatistics: publish, checkpoints: checkpoints, logger: logger)
            core.start()
            core.metrics.startAtZero(apps: Array(configuration.apps.keys))
            return NIOLoopBound(core, eventLoop: loop)
        }.get()
    }

    /// What the lane consumers completed beyond their commits (``CheckpointAccess/offsets``): nil
    /// asks for the campaign consumer's partitions (and the per-user one's too, `perUserToo`:
    /// ``CheckpointAccess/allOffsets``), a set for those partitions of either.
    private static func offsets(
        of partitions: Set<SourcePosition.Partition>?, consumers: Consumers, priorityTopic: String,
        perUserToo: Bool = false
    ) -> [SourcePosition.Partition: PartitionCheckpoint.Offsets] {
        var asked: [(KafkaConsumer, [KafkaTopicPartition]?)] =
            [(consumers.campaign, nil)] + (perUserToo ? [(consumers.priority, nil)] : [])
        if let partitions {
            let kafka = partitions.map { KafkaTopicPartition(topic: $0.topic, partition: $0.partition) }
            asked = [
                (consumers.campaign, kafka.filter { $0.topic != priorityTopic }),
                (consumers.priority, kafka.filter { $0.topic == priorityTopic }),
            ]
        }
        var found: [SourcePosition.Partition: PartitionCheckpoint.Offsets] = [:]
        for (consumer, selected) in asked where selected?.isEmpty != true {
            for (partition, progress) in consumer.progress(of: selected) {
                found[SourcePosition.Partition(topic: partition.topic, partition: partition.partition)] = progress
            }
        }
        return found
    }

    // MARK: Drain

    private func drain(
        core: NIOLoopBound<WorkerCore<ContinuousClock>>, consumers: Consumers, consumerTasks: [Task<Void, Never>],
        lagSampler: Task<Void, Never>,
        publisher: AsyncStream<PendingRecord>.Continuation, publisherTask: Task<Void, Never>,
        progressTask: Task<Void, Never>?,
        producer: KafkaProducer,
        pools: [WorkerPoolKey: APNsConnectionPool], publishReadiness: @Sendable () -> Void
    ) async -> SalvoWorkerError? {
        let started = ContinuousClock.now
        state.withLock { $0.isDraining = true }
        liveness.withLock { $0.finishing() }
        publishReadiness()
        logger.info("draining")
        for task in consumerTasks { task.cancel() }
        lagSampler.cancel()
        // Most of the deadline goes to in-flight sends and acknowledgements; the rest to commit
        // and close.
        let budget = configuration.drainDeadline / 10 * 7
        let promise = eventLoop.makePromise(of: Void.self)
        eventLoop.execute { core.value.beginDrain(within: budget, promise: promise) }
        try? await promise.futureResult.get()
        for task in consumerTasks { await task.value }
        await lagSampler.value
        let checkpointed = (try? await eventLoop.submit { core.value.finalCheckpointsAcknowledged }.get()) ?? false
        let commitFailure = await Self.commitAtShutdown(
            consumers, until: started.advanced(by: configuration.drainDeadline / 10 * 9), checkpointed: checkpointed,
            logger: logger)
        publisher.finish()
        await publisherTask.value
        // The final campaign counts, after every outcome of the drain.
        progressTask?.cancel()
        await progressTask?.value
        let remaining = configuration.drainDeadline - started.duration(to: .now)
        await Self.close(
            consumers, producer: producer, pools: pools, logger: logger,
            producerTimeout: max(.milliseconds(500), remaining / 2))
        try? await eventLoop.submit { core.value.stop() }.get()
        state.withLock { $0.consumers = nil }
        logger.info("drained", metadata: ["seconds": "\(started.duration(to: .now))"])
        return commitFailure
    }

    private static func close(
        _ consumers: Consumers, producer: KafkaProducer, pools: [WorkerPoolKey: APNsConnectionPool], logger: Logger,
        producerTimeout: Duration
    ) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await Self.close(consumers, logger: logger) }
            group.addTask { await producer.shutdown(timeout: producerTimeout) }
            for pool in pools.values {
                group.addTask { await pool.shutdown() }
            }
        }
    }

    /// Closes both lane consumers at once (each leaves its group and commits what it holds).
    static func close(_ consumers: Consumers, logger: Logger) async {
        await withTaskGroup(of: Void.self) { group in
            for consumer in consumers.all {
                group.addTask {
                    do {
                        try await consumer.close()
                    } catch {
                        logger.warning("consumer close failed", metadata: ["error": "\(error)"])
                    }
                }
            }
        }
    }
}
