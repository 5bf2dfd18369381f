import SalvoKafka
import SalvoMockAPNs
import SalvoWorker
import Testing

/// A worker whose start ends at any step, by a failure or by being told to stop, leaves nothing
/// running: every Kafka client it made (producer, followers, consumers, the start checks' short
/// clients) destroyed, every APNs connection of its pools closed, its tasks ended (``run()``
/// returned). Against the real broker (scripts/with-broker.sh), with campaign control on so that
/// every step starts what it starts in production, and the mock APNs over TLS.
@Suite("WorkerEngine start ended at any step")
struct WorkerEngineStartFailureTests {
    @Test(
        "a start failed or stopped at any step stops everything it had started",
        .timeLimit(.minutes(2)),
        arguments: WorkerStartStep.allCases, StartStepProbe.Ending.allCases)
    func startEndedAt(_ step: WorkerStartStep, by ending: StartStepProbe.Ending) async throws {
        try await EngineMock.withTLS { mock, app in
            try await withEngineKafka(partitions: 1) { kafka in
                try await withCampaignBroker { broker in
                    var configuration = WorkerConfiguration.test(kafka: kafka, app: app)
                    configuration.topics.control = try await broker.compactedTopic("control")
                    configuration.topics.campaigns = try await broker.compactedTopic("campaigns")
                    configuration.topics.followsControl = true
                    // Its own client id: the live-client count is this worker's alone.
                    configuration.kafka.clientID = "start-\(step.rawValue)-\(ending.rawValue)-\(kafka.groupID)"
                    let probe = StartStepProbe(
                        step: step, ending: ending, clientID: configuration.kafka.clientID, mock: mock.server)
                    let engine = try WorkerEngine(
                        configuration: configuration, eventLoopGroup: EngineRunner.eventLoopGroup,
                        logger: EngineKafka.logger, startStepFinished: { try await probe.finished($0) })
                    let run = Task { try await engine.run() }
                    switch ending {
                    case .failure:
                        await #expect(throws: StartStepProbe.Injected(step: step)) { try await run.value }
                    case .cancellation:
                        try await run.value
                    }

                    let running = try #require(probe.running, "the start reached \(step)")
                    #expect(running.kafkaClients > 0, "Kafka clients ran at \(step)")
                    if probe.poolsStarted {
                        #expect(running.apnsConnections > 0, "the pools had connected at \(step)")
                    }
                    let left = try await probe.waitUntilNothingRuns(timeout: .seconds(5))
                    #expect(left.kafkaClients == 0, "after \(ending) at \(step): \(left) left")
                    #expect(left.apnsConnections == 0, "after \(ending) at \(step): \(left) left")
                    #expect(!engine.isReady)
                    #expect(engine.hasStarted == (step == .tasks), "started only once its tasks ran")
                }
            }
        }
    }
}
