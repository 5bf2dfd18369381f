#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The real-time clock in the units APNs speaks: JWT `iat` in seconds, 410 timestamps and record
/// receive times in milliseconds. `clock_gettime` is a vDSO call, cheap enough per request.
enum WallClock {
    static func nowMilliseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
    }
}
