import Histogram

/// The percentiles a latency report shows, in milliseconds, taken from an HDR histogram (three
/// significant digits, so p99.9 of a million samples is exact to 0.1%).
public struct LoadTestLatencySummary: Sendable, Hashable, Codable {
    public var count: UInt64
    public var p50: UInt64
    public var p90: UInt64
    public var p99: UInt64
    public var p999: UInt64
    public var max: UInt64
    public var mean: Double

    public init(_ histogram: Histogram<UInt64>) {
        count = histogram.totalCount
        let empty = histogram.totalCount == 0
        p50 = empty ? 0 : histogram.valueAtPercentile(50)
        p90 = empty ? 0 : histogram.valueAtPercentile(90)
        p99 = empty ? 0 : histogram.valueAtPercentile(99)
        p999 = empty ? 0 : histogram.valueAtPercentile(99.9)
        max = empty ? 0 : histogram.max
        mean = empty ? 0 : histogram.mean
    }

    /// An empty histogram of the range every latency in this module uses (0 ms … 1 hour).
    static func makeHistogram(digits: SignificantDigits = .three) -> Histogram<UInt64> {
        Histogram<UInt64>(
            lowestDiscernibleValue: 1, highestTrackableValue: 3_600_000, numberOfSignificantValueDigits: digits)
    }
}
