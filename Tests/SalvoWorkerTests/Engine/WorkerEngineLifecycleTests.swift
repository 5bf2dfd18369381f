import SalvoKafka
import SalvoMockAPNs
import SalvoWorker
import Testing

/// Graceful shutdown mid-campaign, and per-user pushes overtaking a running campaign.
@Suite("WorkerEngine drain and fairness", .serialized)
struct WorkerEngineLifecycleTests {
    @Test(
        "graceful shutdown mid-campaign returns within the deadline; a second engine of the group finishes the campaign"
    )
    func drainThenResume() async throws {
        var scenario = MockScenario()
        scenario.latency = .fixed(milliseconds: 2)
        try await EngineMock.with(scenario: scenario) { mock in
            try await withEngineKafka(partitions: 1) { kafka in
                let tokens = 0..<20_000
                let configuration = WorkerConfiguration.test(
                    kafka: kafka, app: try mock.app(connections: 1, streams: 50))
                let first = try EngineRunner(configuration)
                let drained: Duration
                do {
                    // Two jobs: a record of 20,000 tokens would pass the broker's 1 MB default.
                    _ = try await kafka.produce(
                        [
                            EngineJobs.campaign(id: "drained-1", tokens: 0..<10_000),
                            EngineJobs.campaign(id: "drained-2", tokens: 10_000..<20_000),
                        ],
                        to: kafka.topics.jobs)
                    try await first.waitUntil("3,000 deliveries") { $0.delivered >= 3_000 }
                    drained = try await first.shutdown()
                } catch {
                    _ = try? await first.shutdown()
                    throw error
                }
                let firstStats = first.engine.statistics()
                #expect(drained < configuration.drainDeadline, "run() returned \(drained) after graceful shutdown")
                #expect(firstStats.delivered < tokens.count, "the shutdown came mid-campaign")
                #expect(firstStats.inFlight == 0)
                // The drain finishes the job it had begun (drained-1) by handing its unsent
                // notifications to the retry topic; drained-2, not begun, stays uncommitted.
                #expect(firstStats.jobsCompleted == 1, "the begun job commits, the other does not")
                #expect(
                    firstStats.delivered + firstStats.handedOffOnDrain == 10_000,
                    "what was not sent of drained-1 was handed off")

                try await EngineRunner.with(configuration) { second in
                    try await second.waitUntil("the campaign completed") { $0.jobsCompleted == 2 }
                }
                let counts = mock.pushes.acceptedCounts
                #expect(
                    Set(counts.keys) == Set(tokens.map(Fixtures.tokenHex)),
                    "every token delivered by one engine or the other")
                let duplicates = counts.values.reduce(0) { $0 + $1 - 1 }
                print(
                    "drain: first engine delivered \(firstStats.delivered) in \(drained) of drain; duplicates after resume: \(duplicates)"
                )
                // Nothing the first engine sent is sent again: its job committed. At most the
                // window (50 streams + 64) could repeat, should an acknowledgement miss the drain.
                #expect(duplicates <= 114)
                let committed = try await kafka.committedOffsets(
                    group: kafka.groupID, topic: kafka.topics.jobs, partitions: 1)
                #expect(committed[0] == .some(2))
            }
        }
    }

    @Test("per-user jobs enqueued during a big campaign are sent within a bounded number of campaign sends")
    func perUserOvertakesCampaign() async throws {
        var scenario = MockScenario()
        scenario.latency = .fixed(milliseconds: 3)
        try await EngineMock.with(scenario: scenario) { mock in
            try await withEngineKafka(partitions: 1) { kafka in
                let perUserTokens = (1...50).map(EngineJobs.perUserToken)
                let configuration = WorkerConfiguration.test(
                    kafka: kafka, app: try mock.app(connections: 1, streams: 20))
                try await EngineRunner.with(configuration) { runner in
                    // Both lanes assigned and warm before the measurement.
                    _ = try await kafka.produce(
                        [EngineJobs.perUser(id: "warm-up", token: EngineJobs.perUserToken(0))],
                        to: kafka.topics.priority)
                    try await runner.waitUntil("the warm-up push") { $0.delivered == 1 }
                    _ = try await kafka.produce(
                        [
                            EngineJobs.campaign(id: "big-1", tokens: 0..<10_000),
                            EngineJobs.campaign(id: "big-2", tokens: 10_000..<20_000),
                        ],
                        to: kafka.topics.jobs)
                    try await runner.waitUntil("2,000 campaign sends") { $0.delivered >= 2_001 }

                    let before = mock.pushes.acceptedCount
                    _ = try await kafka.produce(
                        perUserTokens.map { EngineJobs.perUser(id: "user-\($0)", token: $0) }, to: kafka.topics.priority
                    )
                    let perUserHex = Set(perUserTokens.map(Fixtures.tokenHex))
                    try await runner.waitUntil("the per-user pushes") { _ in
                        perUserHex.isSubset(of: mock.pushes.accepted)
                    }

                    let accepted = mock.pushes.accepted
                    let positions = Dictionary(
                        accepted.enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: min)
                    let lastPerUser = perUserTokens.compactMap { positions[Fixtures.tokenHex($0)] }.max() ?? Int.max
                    print(
                        "fairness: per-user pushes enqueued after \(before) sends, all sent by position \(lastPerUser)")
                    #expect(perUserTokens.allSatisfy { positions[Fixtures.tokenHex($0)] != nil })
                    // FIFO would put them behind the ~18,000 campaign notifications left. The count
                    // also includes the sends made while the jobs travelled through Kafka (about
                    // 6,000 a second here), which a loaded machine stretches: half the backlog.
                    #expect(lastPerUser - before < 9_000, "per-user pushes waited behind \(lastPerUser - before) sends")
                }
            }
        }
    }
}
