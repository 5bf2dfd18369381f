import Foundation
import SalvoAPNs
import SalvoKafka
import SalvoLoadTest
import SalvoMockAPNs
import Testing

@Suite("Schedule, tokens and jobs")
struct LoadTestGenerationTests {
    @Test("a constant rate gives evenly spaced arrivals fixed by the rate alone")
    func constantRate() {
        let arrivals = Array(LoadTestSchedule(phases: [.init(durationSeconds: 2, rate: 50)]))
        #expect(arrivals.count == 100)
        #expect(
            arrivals.enumerated().allSatisfy { index, arrival in arrival.offsetNanoseconds == Int64(index) * 20_000_000
            })
        #expect(arrivals.allSatisfy { $0.lane == .priority && $0.tokenCount == 1 })
    }

    @Test("a linear ramp sends its average rate times its duration, denser towards the end")
    func ramp() {
        let arrivals = Array(LoadTestSchedule(phases: [.init(durationSeconds: 10, rate: 100, rampFrom: 0)]))
        #expect(arrivals.count == 500)
        let firstHalf = arrivals.filter { $0.offsetNanoseconds < 5_000_000_000 }.count
        #expect(firstHalf == 125, "N(t) = r1·t²/(2D): 100·25/20 = 125 by t = 5 s")
        let gaps = zip(arrivals.dropFirst(), arrivals).map { $0.offsetNanoseconds - $1.offsetNanoseconds }
        #expect(gaps.first! > gaps.last!)
    }

    @Test("campaign bursts arrive every T from the phase start, phases follow each other")
    func campaignsAndPhases() {
        let schedule = LoadTestSchedule(phases: [
            .init(durationSeconds: 1, rate: 2),
            .init(durationSeconds: 3, campaign: .init(tokensPerJob: 7, everySeconds: 1.5)),
        ])
        let arrivals = Array(schedule)
        #expect(arrivals.map(\.offsetNanoseconds) == [0, 500_000_000, 1_000_000_000, 2_500_000_000])
        #expect(arrivals.map(\.lane) == [.priority, .priority, .campaign, .campaign])
        #expect(arrivals.map(\.tokenCount) == [1, 1, 7, 7])
        #expect(arrivals.map(\.phase) == [0, 0, 1, 1])
        #expect(
            LoadTestPlan(
                scenario: {
                    var s = LoadTestScenario()
                    s.phases = schedule.phases
                    return s
                }()
            ).notifications == 16)
    }

    @Test("tokens hit the wanted fates exactly, as the mock's own function judges them")
    func tokenFates() throws {
        let mock = MockTokenFate(unregistered: 0.05, badDeviceToken: 0.03)
        var source = LoadTestTokenSource(seed: 9, mockTokens: mock, unregistered: 0.02, badDeviceToken: 0.01)
        var counts: [MockTokenFate.Outcome: Int] = [:]
        var tokens: Set<DeviceToken> = []
        // 9,999 tokens: ⌊9999·0.02⌋ = 199 and ⌊9999·0.01⌋ = 99. (A token due for both fates goes
        // to Unregistered and BadDeviceToken follows with the next one, so a run ending exactly on
        // such a token has one BadDeviceToken less.)
        for _ in 0..<9_999 {
            let choice = try source.next()
            #expect(mock.outcome(for: choice.token) == choice.fate)
            counts[choice.fate, default: 0] += 1
            tokens.insert(choice.token)
        }
        #expect(counts[.unregistered] == 199)
        #expect(counts[.badDeviceToken] == 99)
        #expect(counts[.valid] == 9_701)
        #expect(tokens.count == 9_999, "no token repeats")
    }

    @Test("the same seed gives the same tokens, another seed others")
    func seeded() throws {
        func tokens(seed: UInt64) throws -> [DeviceToken] {
            var source = LoadTestTokenSource(
                seed: seed, mockTokens: MockTokenFate(unregistered: 0.5), unregistered: 0.1, badDeviceToken: 0)
            return try (0..<50).map { _ in try source.next().token }
        }
        #expect(try tokens(seed: 1) == tokens(seed: 1))
        #expect(try tokens(seed: 1) != tokens(seed: 2))
    }

    @Test("bad and duplicate jobs come at exact ratios; good jobs are valid JSON with their tokens")
    func jobs() throws {
        var scenario = TestScenarios.small()
        scenario.payloadBytes = 300
        var factory = LoadTestJobFactory(scenario: scenario, runID: "lt-test", startMilliseconds: 1_000_000)
        var jobs: [LoadTestJob] = []
        for arrival in LoadTestSchedule(phases: scenario.phases) { jobs += try factory.jobs(for: arrival) }
        let originals = jobs.filter { !$0.isDuplicate }
        #expect(originals.count == 102, "100 per-user jobs and 2 campaigns")
        #expect(Set(originals.map(\.id)).count == originals.count, "unique ids")
        #expect(originals.filter { $0.deadLetterReason != nil }.count == 10)
        let good = originals.filter { $0.deadLetterReason == nil }
        #expect(jobs.filter(\.isDuplicate).count == Int(Double(good.count) * 0.1))
        #expect(Set(originals.compactMap(\.deadLetterReason)) == Set(LoadTestBadJobKind.allCases.map(\.rawValue)))
        for job in good {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(job.value)) as? [String: Any])
            #expect(object["id"] as? String == job.id)
            #expect(object["app"] as? String == "loadtest")
            let tokens = (object["tokens"] as? [String]) ?? [object["token"] as? String].compactMap { $0 }
            #expect(tokens == job.tokens.map(\.token.hex))
            let payload = try #require(object["payload"] as? [String: Any])
            #expect(try JSONSerialization.data(withJSONObject: payload).count == 300)
            #expect(job.scheduledAtMilliseconds == 1_000_000 + job.offsetNanoseconds / 1_000_000)
        }
        let malformed = try #require(originals.first { $0.deadLetterReason == "malformed_json" })
        #expect((try? JSONSerialization.jsonObject(with: Data(malformed.value))) == nil)
        let message = originals[0].message(topic: "t", runID: "lt-test")
        #expect(
            message.headers.first { $0.key == LoadTestJob.scheduledHeader }?.value
                == Array(String(originals[0].scheduledAtMilliseconds).utf8))
        #expect(message.key == Array(originals[0].id.utf8))
    }
}
