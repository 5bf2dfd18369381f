/// The package's one set of `Duration` conversions, for every module that hands durations to C
/// (librdkafka's timeouts), to metrics or to records. Integer conversions saturate instead of
/// trapping: a configured "forever" must not crash a worker.
extension Duration {
    /// Whole nanoseconds, rounded toward zero, saturating at the bounds of `Int64` (about ±292
    /// years).
    @inlinable
    package var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        let (sum, overflow2) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
        if overflow2 { return seconds < 0 ? .min : .max }
        return sum
    }

    /// Whole milliseconds, rounded up so that a positive duration never becomes 0 ms, and
    /// saturating at the `Int64` range instead of trapping.
    @inlinable
    package var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        let (millis, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        if overflow { return seconds < 0 ? .min : .max }
        let attosecondsPerMillisecond: Int64 = 1_000_000_000_000_000
        let total = millis.addingReportingOverflow(attoseconds / attosecondsPerMillisecond)
        if total.overflow { return seconds < 0 ? .min : .max }
        return attoseconds % attosecondsPerMillisecond > 0 && total.partialValue < .max
            ? total.partialValue + 1 : total.partialValue
    }

    /// Milliseconds clamped to `Int32`, for librdkafka's `int timeout_ms` parameters.
    @inlinable
    package var timeoutMilliseconds: Int32 {
        Int32(clamping: max(0, wholeMilliseconds))
    }

    /// The duration in seconds as a floating-point number (rates, summaries, metrics).
    @inlinable
    package var secondsValue: Double {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }
}
