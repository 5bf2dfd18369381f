import SalvoKafka
import SalvoPrimitives

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
// Clang attributes `timespec`'s fields to whichever module loaded the header first
// (CoreFoundation in a clean release build, the overlay shims in some debug builds), and
// MemberImportVisibility asks for that module by name.
#if canImport(CoreFoundation)
import CoreFoundation
#endif
#if canImport(SwiftOverlayShims)
import SwiftOverlayShims
#endif

/// A wall-clock time in UTC, with millisecond precision: when an event was observed, when a
/// retry record is due. Records cross processes and machines, so they carry wall time; the state
/// machines themselves use an injected `Clock`.
package struct UTCTimestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    package var millisecondsSince1970: Int64

    package init(millisecondsSince1970: Int64) {
        self.millisecondsSince1970 = millisecondsSince1970
    }

    /// The system's real-time clock.
    package static func now() -> UTCTimestamp {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return UTCTimestamp(millisecondsSince1970: Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000)
    }

    /// This time moved by `duration` (rounded down to milliseconds).
    package func advanced(by duration: Duration) -> UTCTimestamp {
        UTCTimestamp(millisecondsSince1970: millisecondsSince1970 + duration.nanoseconds / 1_000_000)
    }

    package static func < (lhs: UTCTimestamp, rhs: UTCTimestamp) -> Bool {
        lhs.millisecondsSince1970 < rhs.millisecondsSince1970
    }

    /// RFC 3339 in UTC with milliseconds, e.g. `2024-05-01T12:00:00.123Z`: what log tools and
    /// every JSON consumer parse without configuration.
    package var rfc3339: String {
        let (days, millisecondOfDay) = Self.floorDivide(millisecondsSince1970, 86_400_000)
        let (year, month, day) = Self.civilDate(daysSince1970: days)
        let seconds = millisecondOfDay / 1000
        return Self.pad(year, 4) + "-" + Self.pad(month, 2) + "-" + Self.pad(day, 2)
            + "T" + Self.pad(seconds / 3600, 2) + ":" + Self.pad(seconds / 60 % 60, 2) + ":" + Self.pad(seconds % 60, 2)
            + "." + Self.pad(millisecondOfDay % 1000, 3) + "Z"
    }

    package var description: String { rfc3339 }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let (quotient, remainder) = value.quotientAndRemainder(dividingBy: divisor)
        return remainder < 0 ? (quotient - 1, remainder + divisor) : (quotient, remainder)
    }

    /// Howard Hinnant's `civil_from_days`: proleptic Gregorian date of a day count since 1970-01-01.
    private static func civilDate(daysSince1970 days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
