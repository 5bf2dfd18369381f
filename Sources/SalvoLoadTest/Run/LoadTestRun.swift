import Foundation
import Logging
import SalvoAPNs
import SalvoKafka
import SalvoMockAPNs
import SalvoPrimitives

/// One load test: produces a scenario's jobs open-loop, watches what the worker makes of them,
/// and returns the report.
///
/// Built to run against an external worker and mock (`salvo loadtest`) as well as in-process
/// (`salvo demo`): the caller owns the producer and, in-process, feeds the mock's deliveries
/// through ``mockListener`` (or ``observeRecord(apnsID:receivedAtMilliseconds:)``) instead of a
/// record file.
public final class LoadTestRun: Sendable {
    public let scenario: LoadTestScenario
    public let plan: LoadTestPlan
    public let measurement: LoadTestMeasurement
    private let producer: KafkaProducer
    private let observe: Observe
    private let logger: Logger

    /// `runID` defaults to `lt-` and the start time in base 36, unique per run and sortable.
    public init(
        scenario: LoadTestScenario, producer: KafkaProducer, observe: Observe = Observe(), runID: String? = nil,
        logger: Logger = Logger(label: "salvo.loadtest")
    ) {
        let now = LoadTestClock.nowMilliseconds()
        let plan = LoadTestPlan(scenario: scenario)
        self.scenario = scenario
        self.plan = plan
        self.producer = producer
        self.observe = observe
        self.logger = logger
        self.measurement = LoadTestMeasurement(
            runID: runID ?? "lt-" + String(now, radix: 36), startMilliseconds: now, bucketSeconds: plan.bucketSeconds)
    }

    public var runID: String { measurement.runID }

    /// librdkafka properties for the producer a run is given. librdkafka looks up a topic its
    /// producer has not used yet about once a second, so the first records to each load topic
    /// were acknowledged ~0.97 s after they were produced and the load's first second reached the
    /// worker in its second one: that second was `salvo demo`'s priority p99 (920 ms).
    /// Refreshing metadata every 100 ms lets them leave within ~70 ms (priority p99 86 ms), for
    /// one metadata request per 100 ms from the generator.
    public static let producerProperties = ["topic.metadata.refresh.interval.ms": "100"]

    /// A listener for an in-process `MockAPNsServer` that feeds this run.
    public var mockListener: LoadTestMockListener { LoadTestMockListener(measurement: measurement) }

    /// The mock accepted `apnsID` at `receivedAtMilliseconds` (wall clock, ms since 1970).
    public func observeRecord(apnsID: APNsID, receivedAtMilliseconds: Int64) {
        measurement.observeRecord(apnsID: apnsID, receivedAtMilliseconds: receivedAtMilliseconds)
    }

    /// Produces the whole schedule, waits up to the scenario's drain time for the expected
    /// effects, and reports. Observers are stopped on every path.
    public func run() async throws(LoadTestError) -> LoadTestReport {
        let readers = try makeReaders()
        var background: [Task<Void, Never>] = []
        for reader in readers {
            let logger = self.logger
            background.append(
                Task {
                    if let failure = await reader.run() { logger.warning("\(failure)") }
                })
        }
        if let path = observe.mockRecordFile {
            let tailer = LoadTestRecordTailer(path: path, measurement: measurement)
            background.append(Task { await tailer.run() })
        } else if let url = observe.mockAdminURL, observe.mockDeliveriesOverAdmin {
            let poller = LoadTestDeliveriesPoller(adminURL: url, measurement: measurement, logger: logger)
            background.append(Task { await poller.run() })
        }
        if let url = observe.workerMetricsURL {
            let measurement = self.measurement
            background.append(Task { await Self.sampleLag(url: url, into: measurement) })
        }
        let progress =
            observe.progress
            ? Task { [measurement, plan] in await LoadTestProgress(measurement: measurement, plan: plan).run() } : nil

        let control = await makeControl()
        let clock = ContinuousClock()
        // The schedule starts one lookahead from now, so the first second's jobs are built
        // before they are due, like every later one.
        let started = clock.now.advanced(by: LoadTestJobFeed.lookahead)
        measurement.begin(
            atMilliseconds: LoadTestClock.nowMilliseconds() + LoadTestJobFeed.lookahead.components.seconds * 1000)
        let controlTask = control.map { driver in Task { await driver.run(start: started, clock: clock) } }
        var failure: LoadTestError?
        var completed = false
        do {
            try await generate(clock: clock, start: started)
            completed = await drain(clock: clock, control: control)
        } catch {
            failure = error
        }
        controlTask?.cancel()
        await controlTask?.value
        progress?.cancel()
        for task in background { task.cancel() }
        for task in background { await task.value }
        await progress?.value
        let controlResults = control?.results() ?? []
        await control?.progress?.close()
        if let failure { throw failure }
        let stats = await mockStats()
        return report(
            elapsed: clock.now - started, completed: completed, mockStats: stats, checksTopics: !readers.isEmpty,
            control: controlResults)
    }

    /// The control driver when the scenario has actions, with the progress topic's reader when
    /// Kafka is observed and the topic can be read (without it the report says so).
    private func makeControl() async -> LoadTestControlDriver? {
        guard !scenario.control.isEmpty else { return nil }
        var reader: LoadTestCampaignProgressReader?
        if let client = observe.kafka {
            do {
                let candidate = try LoadTestCampaignProgressReader(
                    topic: scenario.topics.campaigns, runID: runID, client: client, logger: logger)
                try await candidate.start()
                reader = candidate
            } catch {
                logger.warning("campaign progress not read: \(error)")
            }
        }
        return LoadTestControlDriver(
            scenario: scenario, runID: runID, producer: producer, measurement: measurement, plan: plan,
            progress: reader, logger: logger)
    }

    private func makeReaders() throws(LoadTestError) -> [LoadTestTopicReader] {
        guard let client = observe.kafka else { return [] }
        return [
            try LoadTestTopicReader(
                kind: .feedback, topic: scenario.topics.feedback, client: client, measurement: measurement,
                logger: logger),
            try LoadTestTopicReader(
                kind: .deadLetters, topic: scenario.topics.deadLetters, client: client, measurement: measurement,
                logger: logger),
        ]
    }

    /// The open loop: jobs are built ahead (``LoadTestJobFeed``) and each is handed to the
    /// producer at its due time, or at once when already late, with the lateness recorded.
    /// Nothing waits for an earlier job's acknowledgement, so a slow broker shows as schedule lag
    /// and as latency measured from the schedule, not as a quietly lower rate.
    private func generate(clock: ContinuousClock, start: ContinuousClock.Instant) async throws(LoadTestError) {
        let feed = LoadTestJobFeed(
            scenario: scenario, runID: runID, measurement: measurement, clock: clock, start: start)
        do {
            try await send(feed, clock: clock)
        } catch {
            await feed.stop()
            throw error
        }
        await feed.stop()
        guard !Task.isCancelled else { throw LoadTestError(.cancelled, "cancelled before the schedule ended") }
    }

    private func send(_ feed: LoadTestJobFeed, clock: ContinuousClock) async throws(LoadTestError) {
        let measurement = self.measurement
        var firstFailure: KafkaError?
        do {
            for try await item in feed.items {
                if clock.now < item.due { try await clock.sleep(until: item.due) }
                for job in item.jobs {
                    let topic = job.lane == .campaign ? scenario.topics.campaign : scenario.topics.priority
                    do {
                        try await producer.enqueue(job.message(topic: topic, runID: runID)) { result in
                            measurement.acknowledged((try? result.get()) != nil)
                        }
                    } catch {
                        measurement.acknowledged(false)
                        if firstFailure == nil { logger.error("job \(job.id) not produced: \(error)") }
                        firstFailure = firstFailure ?? error
                    }
                    let late = clock.now - item.due
                    measurement.produced(
                        job,
                        lateByNanoseconds: late.nanoseconds)
                }
            }
        } catch let error as LoadTestError {
            throw error
        } catch {
            throw LoadTestError(.cancelled, "the schedule was interrupted", underlying: "\(error)")
        }
    }

    /// Waits until every expected effect was observed or the drain time passed; true when complete.
    private func drain(clock: ContinuousClock, control: LoadTestControlDriver?) async -> Bool {
        let deadline = clock.now + .milliseconds(Int64(scenario.drainSeconds * 1000))
        do {
            try await producer.flush(timeout: .seconds(max(5, scenario.drainSeconds)))
        } catch {
            logger.warning("producer flush: \(error)")
        }
        let checksTopics = observe.kafka != nil
        while !Task.isCancelled {
            if measurement.snapshot().isComplete(checkingFeedback: checksTopics, checkingDeadLetters: checksTopics),
                control?.isSettled(nowMilliseconds: LoadTestClock.nowMilliseconds()) ?? true
            {
                return true
            }
            guard clock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    private func mockStats() async -> MockAPNsStats? {
        guard let base = observe.mockAdminURL else { return nil }
        do {
            let data = try await LoadTestHTTP.get(base + "/stats")
            return try JSONDecoder().decode(MockAPNsStats.self, from: data)
        } catch {
            logger.warning("mock /stats: \(error)")
            return nil
        }
    }

    private static func sampleLag(url: String, into measurement: LoadTestMeasurement) async {
        while !Task.isCancelled {
            if let data = try? await LoadTestHTTP.get(url, timeout: 1),
                let lag = LoadTestHTTP.sum(of: "salvo_consumer_lag", in: String(decoding: data, as: UTF8.self))
            {
                measurement.recordConsumerLag(lag, atMilliseconds: LoadTestClock.nowMilliseconds())
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }

    private func report(
        elapsed: Duration, completed: Bool, mockStats: MockAPNsStats?, checksTopics: Bool,
        control: [LoadTestControlResult]
    ) -> LoadTestReport {
        let snapshot = measurement.snapshot()
        return LoadTestReport(
            scenario: scenario.name, mockScenario: scenario.mockScenario, runID: runID,
            startMilliseconds: measurement.startMilliseconds, plannedSeconds: scenario.durationSeconds,
            elapsedSeconds: elapsed.secondsValue,
            completed: completed, snapshot: snapshot, timeline: measurement.timeline(),
            bucketSeconds: measurement.bucketSeconds,
            distribution: measurement.distribution(), consumerLag: measurement.consumerLag(), mockStats: mockStats,
            missingFeedbackSample: checksTopics ? measurement.missingFeedback(limit: 20) : [],
            problems: LoadTestReport.problems(
                of: snapshot, mockStats: mockStats, checksFeedback: checksTopics, checksDeadLetters: checksTopics)
                + control.flatMap(\.problems),
            objectives: scenario.objectives.evaluate(
                snapshot, plannedSeconds: scenario.durationSeconds, control: control),
            control: control)
    }
}
