import SalvoAPNs
import SalvoKafka
import SalvoMockAPNs
import SalvoWorker
import Testing

/// Faults on the APNs side: 503s, GOAWAYs, per-token 429s, and a token that always fails.
@Suite("WorkerEngine under APNs faults", .serialized)
struct WorkerEngineFaultTests {
    @Test(
        "5 % 503, GOAWAY every 700 streams and 429s lose nothing; an always-failing token ends in the DLQ with retries_exhausted"
    )
    func faultsLoseNothing() async throws {
        var scenario = MockScenario()
        scenario.errors = MockScenario.ErrorRates(serviceUnavailable: 0.05)
        scenario.goAway = MockScenario.Periodic(everyStreams: 700)
        scenario.rateLimit = MockScenario.RateLimit(requests: 1, perSeconds: 0.5)
        scenario.seed = 7
        let doomed = Fixtures.tokenHex(EngineJobs.perUserToken(999))
        let rule: @Sendable (APNsReceivedRequest) -> APNsReason? = { request in
            request.token.hex == doomed ? .internalServerError : nil
        }
        try await EngineMock.with(scenario: scenario, additionalRule: rule) { mock in
            try await withEngineKafka(partitions: 2) { kafka in
                var configuration = WorkerConfiguration.test(
                    kafka: kafka, app: try mock.app(connections: 2, streams: 100))
                // Eight attempts: a repeated push can lose a 429 race against its own token's
                // other retries and meet a 503 (5 %) on top; with five, one in a few dozen runs
                // exhausted a valid push.
                configuration.outcomes.maximumAttempts = 8
                // Every retry comes more than the mock's 0.5 s rate window later (equal jitter:
                // half the delay is fixed), so a retry is never itself answered 429.
                configuration.retry.backoff = RetryBackoff(
                    initialDelay: .milliseconds(1_100), maximumDelay: .milliseconds(1_200))
                configuration.retry.tooManyRequests = configuration.retry.backoff
                // Three per-user jobs to each of three tokens: the mock answers 429 to all but
                // the first push of a token in any half second.
                let repeated = (0..<9).map {
                    EngineJobs.perUser(id: "repeat-\($0)", token: EngineJobs.perUserToken($0 % 3))
                }
                let campaignTokens = 0..<3_000
                let stats = try await EngineRunner.with(configuration) { runner in
                    _ = try await kafka.produce(
                        [EngineJobs.campaign(id: "faulty-campaign", tokens: campaignTokens)], to: kafka.topics.jobs)
                    _ = try await kafka.produce(
                        repeated + [EngineJobs.perUser(id: "doomed", token: EngineJobs.perUserToken(999))],
                        to: kafka.topics.priority)
                    try await runner.waitUntil("all 11 jobs completed", timeout: .seconds(50)) {
                        $0.jobsCompleted == 11
                    }
                    return runner.engine.statistics()
                }

                let accepted = mock.pushes.acceptedCounts
                for n in campaignTokens {
                    #expect(accepted[Fixtures.tokenHex(n)] ?? 0 >= 1, "campaign token \(n) delivered")
                }
                for n in 0..<3 {
                    #expect(
                        accepted[Fixtures.tokenHex(EngineJobs.perUserToken(n))] ?? 0 >= 3,
                        "each repeated push delivered")
                }
                #expect(accepted[doomed] == nil)
                #expect(stats.retried > 0)
                #expect(stats.delivered >= 3_009)
                #expect(mock.pushes.rejected[doomed] == 8, "attempts bounded by maximumAttempts")

                let deadLetters = try await kafka.read(kafka.topics.deadLetter, count: 1)
                #expect(deadLetters.count == 1)
                let headers = Dictionary(
                    deadLetters.first?.headers.map { ($0.key, String(decoding: $0.value ?? [], as: UTF8.self)) } ?? [],
                    uniquingKeysWith: { $1 })
                #expect(headers["salvo-reason"] == "retries_exhausted")
                #expect(headers["salvo-attempts"] == "8")
                #expect(deadLetters.first.map { String(decoding: $0.value, as: UTF8.self).contains(doomed) } == true)
            }
        }
    }

    @Test("with no room for retries in memory, retries go through the retry topic and come back; nothing is lost")
    func retriesThroughTheRetryTopic() async throws {
        var scenario = MockScenario()
        scenario.errors = MockScenario.ErrorRates(serviceUnavailable: 0.2)
        scenario.seed = 11
        try await EngineMock.with(scenario: scenario) { mock in
            try await withEngineKafka(partitions: 1) { kafka in
                var configuration = WorkerConfiguration.test(kafka: kafka, app: try mock.app())
                configuration.retry.maximumHeldNotifications = 0
                configuration.outcomes.maximumAttempts = 10
                let tokens = Set((0..<2_000).map(Fixtures.tokenHex))
                let stats = try await EngineRunner.with(configuration) { runner in
                    _ = try await kafka.produce(
                        [EngineJobs.campaign(id: "retried-campaign", tokens: 0..<2_000)], to: kafka.topics.jobs)
                    try await runner.waitUntil("every token delivered") { _ in tokens.isSubset(of: mock.pushes.accepted)
                    }
                    try await runner.waitUntil("the campaign committed") {
                        $0.jobsCompleted >= 1 && $0.inFlight == 0 && $0.retryDepth == 0
                    }
                    return runner.engine.statistics()
                }
                #expect(stats.retried == 0, "nothing was held in memory")
                #expect(stats.handedOff > 0)
                #expect(stats.retryRecordsAcknowledged > 0)
                #expect(stats.deadLettered == 0)
                #expect(Set(mock.pushes.accepted) == tokens)
                let committed = try await kafka.committedOffsets(
                    group: kafka.groupID, topic: kafka.topics.jobs, partitions: 1)
                #expect(committed[0] == .some(1))
            }
        }
    }

    @Test("the device rate limit delays repeated pushes to one token instead of dropping them")
    func deviceRateLimitDelays() async throws {
        try await EngineMock.with { mock in
            try await withEngineKafka(partitions: 1) { kafka in
                var configuration = WorkerConfiguration.test(kafka: kafka, app: try mock.app())
                configuration.deviceRateLimit = RateLimit(perSecond: 5, burst: 2)
                let token = EngineJobs.perUserToken(1)
                let stats = try await EngineRunner.with(configuration) { runner in
                    _ = try await kafka.produce(
                        (0..<8).map { EngineJobs.perUser(id: "burst-\($0)", token: token) }, to: kafka.topics.priority)
                    try await runner.waitUntil("8 pushes delivered") { $0.delivered == 8 && $0.jobsCompleted == 8 }
                    return runner.engine.statistics()
                }
                #expect(stats.rateLimited >= 5, "beyond the burst of 2, the pushes waited")
                #expect(mock.pushes.acceptedCounts[Fixtures.tokenHex(token)] == 8)
                #expect(stats.retried == 0, "a delay is not a retry")
            }
        }
    }
}
