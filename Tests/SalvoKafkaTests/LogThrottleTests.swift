import Logging
import SalvoKafka
import SalvoTestSupport
import Testing

/// Timelines of one kind of message repeating, on a manual clock.
@Suite struct LogThrottleTests {
    typealias Throttle = LogThrottle<ManualClock>

    @Test func theFirstOccurrenceIsWrittenAndRepeatsWithinTheIntervalAreCounted() {
        let clock = ManualClock()
        var throttle = Throttle(interval: .seconds(10))
        #expect(throttle.shouldLog("FAIL", now: clock.now) == .log)
        for _ in 0..<5 {
            clock.advance(by: .seconds(1))
            #expect(throttle.shouldLog("FAIL", now: clock.now) == .suppress)
        }
        clock.advance(by: .seconds(5))
        #expect(throttle.shouldLog("FAIL", now: clock.now) == .logWithSuppressed(5), "10 s after the first line")
        clock.advance(by: .seconds(1))
        #expect(throttle.shouldLog("FAIL", now: clock.now) == .suppress, "a new interval started with that line")
    }

    @Test func kindsAreThrottledApart() {
        let clock = ManualClock()
        var throttle = Throttle()
        #expect(throttle.shouldLog("FAIL", now: clock.now) == .log)
        #expect(throttle.shouldLog("REQTMOUT", now: clock.now) == .log)
        #expect(throttle.shouldLog("FAIL", now: clock.now) == .suppress)
        #expect(throttle.shouldLog("REQTMOUT", now: clock.now) == .suppress)
    }

    @Test func aStormWritesOneLineThenOneSummaryPerInterval() {
        let clock = ManualClock()
        var throttle = Throttle(interval: .seconds(10))
        var lines = 0
        var written = 0
        var counted = 0
        // 84 occurrences a second for a minute, in bursts every 500 ms; summaries are collected
        // every 100 ms, as a poll loop would.
        for tick in 0..<600 {
            for summary in throttle.dueSummaries(now: clock.now) {
                lines += 1
                counted += summary.suppressed
                #expect(summary.lastDetail == "Connect failed")
                #expect(summary.since == .seconds(10))
            }
            if tick % 5 == 3 {
                for _ in 0..<42 {
                    switch throttle.shouldLog("FAIL", detail: "Connect failed", now: clock.now) {
                    case .log:
                        lines += 1
                        written += 1
                    case .logWithSuppressed(let count):
                        lines += 1
                        written += 1
                        counted += count
                    case .suppress: break
                    }
                }
            }
            clock.advance(by: .milliseconds(100))
        }
        #expect(lines == 6, "the first at 0.3 s, then summaries at 10.3, 20.3, 30.3, 40.3 and 50.3 s")
        clock.advance(by: .seconds(10))
        let pending = throttle.dueSummaries(now: clock.now).map(\.suppressed).reduce(0, +)
        #expect(written + counted + pending == 84 * 60, "every occurrence is written or counted")
    }

    @Test func aSummaryCarriesTheCountOfAStormThatStopped() {
        let clock = ManualClock()
        var throttle = Throttle(interval: .seconds(10))
        _ = throttle.shouldLog("COMMITFAIL", now: clock.now)
        clock.advance(by: .seconds(2))
        _ = throttle.shouldLog("COMMITFAIL", detail: "first", now: clock.now)
        _ = throttle.shouldLog("COMMITFAIL", detail: "last", now: clock.now)
        #expect(throttle.dueSummaries(now: clock.now) == [], "the interval has not passed")
        clock.advance(by: .seconds(8))
        #expect(
            throttle.dueSummaries(now: clock.now) == [
                .init(key: "COMMITFAIL", suppressed: 2, level: .warning, lastDetail: "last", since: .seconds(10))
            ])
        #expect(throttle.dueSummaries(now: clock.now) == [], "written once")
    }

    @Test func aKindQuietForAnIntervalIsForgottenAndWrittenAtOnceWhenItComesBack() {
        let clock = ManualClock()
        var throttle = Throttle(interval: .seconds(10))
        _ = throttle.shouldLog("FAIL", now: clock.now)
        _ = throttle.shouldLog("FAIL", now: clock.now)
        clock.advance(by: .seconds(10))
        #expect(throttle.dueSummaries(now: clock.now).map(\.suppressed) == [1])
        #expect(throttle.trackedKinds == 1, "the summary line starts an interval of its own")
        clock.advance(by: .seconds(10))
        #expect(throttle.dueSummaries(now: clock.now) == [])
        #expect(throttle.trackedKinds == 0)
        #expect(throttle.shouldLog("FAIL", now: clock.now) == .log)
    }

    @Test func aSummaryIsAsSevereAsTheWorstOccurrenceItCounts() {
        let clock = ManualClock()
        var throttle = Throttle(interval: .seconds(10))
        #expect(throttle.shouldLog("FAIL", level: .info, now: clock.now) == .log)
        _ = throttle.shouldLog("FAIL", level: .info, now: clock.now)
        _ = throttle.shouldLog("FAIL", level: .error, now: clock.now)
        _ = throttle.shouldLog("FAIL", level: .info, now: clock.now)
        clock.advance(by: .seconds(10))
        #expect(throttle.dueSummaries(now: clock.now).map(\.level) == [.error])
    }

    @Test func remainingSummariesSayWhatIsPendingBeforeTheIntervalEnds() {
        let clock = ManualClock()
        var throttle = Throttle(interval: .seconds(10))
        _ = throttle.shouldLog("FAIL", now: clock.now)
        _ = throttle.shouldLog("FAIL", detail: "refused", now: clock.now)
        _ = throttle.shouldLog("REQTMOUT", now: clock.now)
        clock.advance(by: .seconds(3))
        #expect(
            throttle.remainingSummaries(now: clock.now) == [
                .init(key: "FAIL", suppressed: 1, level: .warning, lastDetail: "refused", since: .seconds(3))
            ], "REQTMOUT left nothing out")
        #expect(throttle.trackedKinds == 0)
    }

    @Test func decisionsGiveTheMetadataToWriteWith() {
        let base: Logger.Metadata = ["error": "down"]
        #expect(Throttle.Decision.log.metadata(base) == base)
        #expect(Throttle.Decision.logWithSuppressed(3).metadata(base) == ["error": "down", "suppressed": "3"])
        #expect(Throttle.Decision.suppress.metadata(base) == nil)
    }
}
