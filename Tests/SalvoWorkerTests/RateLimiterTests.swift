import SalvoAPNs
import Testing

@testable import SalvoWorker

@Suite struct RateLimiterTests {
    let start = ContinuousClock.now

    @Test func bucketAllowsTheBurstThenSpacesSends() {
        var bucket = TokenBucket<ContinuousClock>(limit: RateLimit(perSecond: 10, burst: 3), now: start)
        let delays = (0..<6).map { _ in bucket.reserve(now: start) }
        #expect(delays == [.zero, .zero, .zero, .milliseconds(100), .milliseconds(200), .milliseconds(300)])
    }

    @Test func bucketRefillsOverTime() {
        var bucket = TokenBucket<ContinuousClock>(limit: RateLimit(perSecond: 10, burst: 2), now: start)
        _ = bucket.reserve(now: start)
        _ = bucket.reserve(now: start)
        #expect(bucket.reserve(now: start.advanced(by: .milliseconds(50))) == .milliseconds(50))
        // After a quiet second the full burst is back.
        let later = start.advanced(by: .seconds(2))
        #expect(bucket.reserve(now: later) == .zero)
        #expect(bucket.reserve(now: later) == .zero)
        #expect(bucket.reserve(now: later) == .milliseconds(100))
    }

    @Test func sustainedRateIsHonoured() {
        // 1,000 sends queued at once at 100/s take 10 s minus the burst's head start.
        var bucket = TokenBucket<ContinuousClock>(limit: RateLimit(perSecond: 100, burst: 10), now: start)
        let last = (0..<1_000).map { _ in bucket.reserve(now: start) }.last
        #expect(last == .milliseconds(9_900))
    }

    @Test func appLimitsArePerAppWithADefault() throws {
        var limiter = try AppRateLimiter<ContinuousClock>(
            configuration: .init(
                limits: ["news": RateLimit(perSecond: 1, burst: 1)],
                defaultLimit: RateLimit(perSecond: 2, burst: 1)
            ))
        #expect(limiter.reserve(app: "news", now: start) == .zero)
        #expect(limiter.reserve(app: "news", now: start) == .seconds(1))
        #expect(limiter.reserve(app: "chat", now: start) == .zero)
        #expect(limiter.reserve(app: "chat", now: start) == .milliseconds(500))

        var unlimited = try AppRateLimiter<ContinuousClock>(configuration: .init())
        #expect((0..<1_000).allSatisfy { _ in unlimited.reserve(app: "news", now: start) == .zero })
    }

    @Test func deviceLimitDelaysAStormOnOneToken() throws {
        var limiter = try DeviceRateLimiter<ContinuousClock>(
            configuration: .init(limit: RateLimit(perSecond: 1, burst: 5), slotCount: 64), now: start)
        let storm = (0..<10).map { _ in limiter.reserve(Fixtures.token(1), now: start) }
        #expect(
            storm == [
                .zero, .zero, .zero, .zero, .zero, .seconds(1), .seconds(2), .seconds(3), .seconds(4), .seconds(5),
            ])
        // Another token is not affected.
        #expect(limiter.reserve(Fixtures.token(2), now: start) == .zero)
        #expect(limiter.constrainedTokens(now: start) == 2)
        #expect(limiter.constrainedTokens(now: start.advanced(by: .seconds(60))) == 0)
    }

    @Test func deviceBlockAfterTooManyRequests() throws {
        var limiter = try DeviceRateLimiter<ContinuousClock>(now: start)
        limiter.block(Fixtures.token(1), until: start.advanced(by: .seconds(30)), now: start)
        #expect(limiter.reserve(Fixtures.token(1), now: start) == .seconds(30))
        #expect(limiter.reserve(Fixtures.token(1), now: start.advanced(by: .seconds(31))) == .zero)
        #expect(limiter.reserve(Fixtures.token(2), now: start) == .zero)
    }

    @Test func deviceMemoryIsBoundedUnderChurn() throws {
        var limiter = try DeviceRateLimiter<ContinuousClock>(
            configuration: .init(limit: RateLimit(perSecond: 1, burst: 2), slotCount: 256), now: start)
        // 20,000 distinct tokens, one send each, one millisecond apart: each is within its burst,
        // so nothing is delayed, and the table never grows.
        var now = start
        var delayed = 0
        for n in 0..<20_000 {
            now = now.advanced(by: .milliseconds(1))
            if limiter.reserve(Fixtures.token(n), now: now) != .zero { delayed += 1 }
        }
        #expect(delayed == 0)
        #expect(limiter.evictions >= 20_000 - 256)
        #expect(limiter.constrainedTokens(now: now) <= 256)
        // A hot token is still limited among the churn.
        let hot = Fixtures.token(1_000_000)
        _ = limiter.reserve(hot, now: now)
        _ = limiter.reserve(hot, now: now)
        #expect(limiter.reserve(hot, now: now) == .seconds(1))
    }

    @Test func configurationIsValidated() {
        #expect(throws: SalvoWorkerError.self) {
            try DeviceRateLimiter<ContinuousClock>(configuration: .init(slotCount: 100), now: start)
        }
        #expect(throws: SalvoWorkerError.self) {
            try DeviceRateLimiter<ContinuousClock>(
                configuration: .init(limit: RateLimit(perSecond: 0, burst: 1)), now: start)
        }
        #expect(throws: SalvoWorkerError.self) {
            try AppRateLimiter<ContinuousClock>(configuration: .init(limits: ["x": RateLimit(perSecond: 1, burst: 0)]))
        }
    }
}
