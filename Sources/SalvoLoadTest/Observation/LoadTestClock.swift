import Foundation

/// The wall clock the measurement shares with the mock (its records are wall-clock milliseconds).
enum LoadTestClock {
    static func nowMilliseconds() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
    }
}
