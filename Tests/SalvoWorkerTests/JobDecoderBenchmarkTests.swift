import Foundation
import NIOCore
import SalvoAPNs
import Testing
@testable import SalvoWorker

/// Prints decode and fan-out cost for a large campaign; never asserts timings (they depend on the
/// machine and the build). Meaningful numbers come from a release build:
/// `swift build -c release --build-tests && swift test -c release --skip-build --filter JobDecoderBenchmark`.
/// `SALVO_BENCH_TOKENS` sets the campaign size (default 100,000 in release builds, 5,000 in debug
/// builds, where SwiftNIO's and SalvoAPNs's unoptimized generics cost tens of µs per token).
@Suite struct JobDecoderBenchmarkTests {
    @Test func campaignDecodeAndFanOut() throws {
        let count = Self.environmentInteger("SALVO_BENCH_TOKENS") ?? Self.defaultCount
        let message = ByteBuffer(string: Fixtures.campaignJSON(count: count))
        let clock = ContinuousClock()
        var job: Job?
        var decodeBest = Duration.seconds(1_000)
        for _ in 0..<3 {
            let elapsed = try clock.measure { job = try Fixtures.decoder.decode(message).get() }
            decodeBest = min(decodeBest, elapsed)
        }
        let decoded = try #require(job)
        #expect(decoded.notificationCount == count)

        let reference = decoded.reference(source: Fixtures.source)
        var checksum = 0
        let fanOut = clock.measure {
            for index in 0..<decoded.notificationCount {
                checksum &+= decoded.notification(at: index, job: reference).payload.readableBytes
            }
        }
        #expect(checksum == count * decoded.payload.readableBytes)

        let perToken = decodeBest.secondsValue * 1e9 / Double(count)
        let perNotification = fanOut.secondsValue * 1e9 / Double(count)
        print("job decode (\(Self.buildName)): \(count) tokens, \(message.readableBytes) bytes, best of 3: \(decodeBest) = \(Int(perToken)) ns/token; fan-out (token + apns-id + notification): \(Int(perNotification)) ns/notification")
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
}
