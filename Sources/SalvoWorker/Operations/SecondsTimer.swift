import Metrics
import Prometheus

/// A swift-metrics timer that records into a Prometheus histogram of seconds as `Double`s.
///
/// swift-prometheus's own `DurationHistogram` compares each observation with every bucket through
/// `Duration`'s comparison, a call each: ~560 instructions per observation
/// (`make bench-instructions`), paid twice per notification by the request-duration and
/// end-to-end-latency timers. Compared as `Double`s the same buckets cost a few instructions each.
/// The exposition is the same: `le` and `_sum` in seconds, family type `histogram`.
package final class SecondsTimer: TimerHandler, Sendable {
    package let histogram: ValueHistogram

    init(_ histogram: ValueHistogram) {
        self.histogram = histogram
    }

    package func recordNanoseconds(_ duration: Int64) {
        histogram.record(Double(duration) / 1e9)
    }

    /// A bucket bound in seconds, computed as observations are (so an observation equal to a
    /// bound falls in its bucket).
    static func seconds(_ duration: Duration) -> Double {
        let components = duration.components
        let nanoseconds = components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000
        return Double(nanoseconds) / 1e9
    }
}
