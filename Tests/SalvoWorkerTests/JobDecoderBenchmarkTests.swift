import Foundation
import NIOCore
import SalvoAPNs
import SalvoKafka
import SalvoPrimitives
import Testing

@testable import SalvoWorker

/// Prints decode and fan-out cost for a large campaign; never asserts timings (they depend on the
/// machine and the build). Times are CPU time of the test's thread, which stays stable on a
/// shared machine where wall time does not. Meaningful numbers come from a release build:
/// `swift build -c release --build-tests -Xswiftc -enable-testing &&
///  swift test -c release -Xswiftc -enable-testing --skip-build --filter JobDecoderBenchmark`.
/// `SALVO_BENCH_TOKENS` sets the campaign size (default 100,000 in release builds, 5,000 in debug
/// builds, where SwiftNIO's and SalvoAPNs's unoptimized generics cost tens of µs per token).
@Suite struct JobDecoderBenchmarkTests {
    @Test func campaignDecodeAndFanOut() throws {
        let count = Self.environmentInteger("SALVO_BENCH_TOKENS") ?? Self.defaultCount
        let message = ByteBuffer(string: Fixtures.campaignJSON(count: count))
        var job: Job?
        var decodeBest = Duration.seconds(1_000)
        for _ in 0..<3 {
            let (decoded, elapsed) = Self.cpuTime { Fixtures.decoder.decode(message) }
            job = try decoded.get()
            decodeBest = min(decodeBest, elapsed)
        }
        let decoded = try #require(job)
        #expect(decoded.notificationCount == count)

        let reference = decoded.reference(source: Fixtures.source)
        let (checksum, fanOut) = Self.cpuTime {
            var checksum = 0
            for index in 0..<decoded.notificationCount {
                checksum &+= decoded.notification(at: index, job: reference).payload.readableBytes
            }
            return checksum
        }
        #expect(checksum == count * decoded.payload.readableBytes)

        let perToken = decodeBest.secondsValue * 1e9 / Double(count)
        let perNotification = fanOut.secondsValue * 1e9 / Double(count)
        print(
            "job decode (\(Self.buildName), thread CPU time): \(count) tokens, \(message.readableBytes) bytes, best of 3: \(Int(perToken)) ns/token; fan-out (DeviceToken + apns-id + PushNotification): \(Int(perNotification)) ns/notification"
        )
    }

    #if DEBUG
    private static let defaultCount = 5_000
    private static let buildName = "debug build"
    #else
    private static let defaultCount = 100_000
    private static let buildName = "release build"
    #endif

    private static func environmentInteger(_ name: String) -> Int? {
        ProcessInfo.processInfo.environment[name].flatMap { Int($0) }
    }

    /// Runs `body` and returns its result with the CPU time the calling thread spent in it.
    private static func cpuTime<T>(_ body: () -> T) -> (T, Duration) {
        var start = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start)
        let result = body()
        var end = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &end)
        return (result, .seconds(Int64(end.tv_sec - start.tv_sec)) + .nanoseconds(Int64(end.tv_nsec - start.tv_nsec)))
    }
}
