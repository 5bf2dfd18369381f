#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The production sources of wall time and jitter, shared by the provider and its registry so
/// their defaults cannot drift apart.
@usableFromInline
enum TokenProviderDefaults {
    /// Seconds since 1970 from the system's wall clock: `iat` must match Apple's clock, not a
    /// monotonic one.
    @usableFromInline
    static let unixTime: @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }

    /// A uniform fraction in 0…1.
    @usableFromInline
    static let jitter: @Sendable () -> Double = { Double.random(in: 0...1) }
}
