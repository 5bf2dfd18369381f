import CoreMetrics
import Synchronization

/// A Prometheus histogram of durations in seconds behind a swift-metrics timer, recorded
/// without a lock.
///
/// Why not swift-prometheus's histogram: it takes a mutex and walks every bucket per
/// observation (its buckets are cumulative), ~450 instructions, and the request-duration and
/// end-to-end-latency timers pay that once per notification each, every event loop contending
/// for the same mutex. Here an observation finds its one bucket and adds to two relaxed
/// atomics; the cumulative counts, `_sum` and `_count` are computed when a scrape asks
/// (``SecondsHistogramRegistry``). The exposition is the same: `le` and `_sum` in seconds,
/// family type `histogram`. A scrape may see an observation's bucket before its sum; the
/// next one agrees.
package final class SecondsHistogram: TimerHandler, Sendable {
    /// `name="value",…` with the values escaped; empty without labels.
    let renderedLabels: String
    /// Upper bounds in nanoseconds, ascending: an observation equal to a bound is in its bucket.
    private let bounds: [Int64]
    /// One per bound, then one for observations above every bound (`+Inf`); not cumulative.
    private let counts: [HistogramCounter]
    private let sumNanoseconds = Atomic<Int>(0)

    init(renderedLabels: String, bounds: [Int64]) {
        self.renderedLabels = renderedLabels
        self.bounds = bounds
        self.counts = (0...bounds.count).map { _ in HistogramCounter() }
    }

    package func recordNanoseconds(_ duration: Int64) {
        var index = 0
        while index < self.bounds.count, duration > self.bounds[index] { index += 1 }
        self.counts[index].value.wrappingAdd(1, ordering: .relaxed)
        self.sumNanoseconds.wrappingAdd(Int(truncatingIfNeeded: duration), ordering: .relaxed)
    }

    /// The cumulative count per bound then `+Inf`, and the sum in seconds, as a scrape reports them.
    var snapshot: (cumulative: [Int], sumSeconds: Double) {
        var running = 0
        let cumulative = self.counts.map { counter in
            running += counter.value.load(ordering: .relaxed)
            return running
        }
        return (cumulative, Double(self.sumNanoseconds.load(ordering: .relaxed)) / 1e9)
    }
}

/// One bucket's count: a class, because an `Atomic` cannot be copied into an array.
final class HistogramCounter: Sendable {
    let value = Atomic<Int>(0)
}
