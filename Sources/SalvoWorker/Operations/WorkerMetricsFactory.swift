import Metrics
import Prometheus

/// The swift-metrics factory of the worker: swift-prometheus's registry, with a `# HELP` line for
/// every family.
///
/// swift-prometheus 2.x keeps help text per family, but only its own API sets it
/// (`makeCounter(descriptor:labels:)`, …); its `PrometheusMetricsFactory` registers every
/// swift-metrics instrument with an empty one, and a family's help cannot change once registered.
/// So this factory does what `PrometheusMetricsFactory` does, taking each family's help text from
/// ``WorkerMetricCatalog`` (the code-side copy of docs/metrics.md) — the instruments in
/// `SalvoWorker` and `SalvoAPNs` stay plain swift-metrics ones. Timers are Salvo's own lock-free
/// histograms (``SecondsHistogram``), kept in ``histograms``.
package struct WorkerMetricsFactory: MetricsFactory, Sendable {
    package let registry: PrometheusCollectorRegistry
    package let histograms: SecondsHistogramRegistry
    /// Help text by family name; a family missing here gets none (a test keeps it complete).
    package var help: [String: String]
    /// Buckets by timer label; others get ``defaultDurationBuckets``.
    package var durationBuckets: [String: [Duration]]
    package var defaultDurationBuckets: [Duration] = [
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
        .milliseconds(250),
        .milliseconds(500), .seconds(1), .milliseconds(2_500), .seconds(5), .seconds(10),
    ]
    /// Buckets of aggregating recorders (none of Salvo's instruments is one).
    package var valueBuckets: [Double] = [5, 10, 25, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000]

    package init(
        registry: PrometheusCollectorRegistry, histograms: SecondsHistogramRegistry = SecondsHistogramRegistry(),
        help: [String: String], durationBuckets: [String: [Duration]] = [:]
    ) {
        self.registry = registry
        self.histograms = histograms
        self.help = help
        self.durationBuckets = durationBuckets
    }

    private func descriptor(_ label: String) -> MetricNameDescriptor {
        // An empty unit adds nothing to the name: the descriptor's name is the label.
        MetricNameDescriptor(metricName: label, unitName: "", helpText: help[label] ?? "")
    }

    package func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        registry.makeCounter(descriptor: descriptor(label), labels: dimensions)
    }

    package func makeFloatingPointCounter(
        label: String, dimensions: [(String, String)]
    ) -> any FloatingPointCounterHandler {
        registry.makeCounter(descriptor: descriptor(label), labels: dimensions)
    }

    package func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        guard aggregate else { return registry.makeGauge(descriptor: descriptor(label), labels: dimensions) }
        return registry.makeValueHistogram(descriptor: descriptor(label), labels: dimensions, buckets: valueBuckets)
    }

    package func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        registry.makeGauge(descriptor: descriptor(label), labels: dimensions)
    }

    /// A histogram of seconds behind a swift-metrics timer (``SecondsHistogram``): the same
    /// exposition as swift-prometheus's `DurationHistogram`, at a fraction of its cost per
    /// observation, which two hot timers pay once per notification.
    package func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        histograms.histogram(
            name: label, help: help[label] ?? "", labels: dimensions,
            buckets: durationBuckets[label] ?? defaultDurationBuckets)
    }

    package func destroyCounter(_ handler: any CounterHandler) {
        if let counter = handler as? Prometheus.Counter { registry.unregisterCounter(counter) }
    }

    package func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {
        if let counter = handler as? Prometheus.Counter { registry.unregisterCounter(counter) }
    }

    package func destroyRecorder(_ handler: any RecorderHandler) {
        switch handler {
        case let gauge as Prometheus.Gauge: registry.unregisterGauge(gauge)
        case let histogram as ValueHistogram: registry.unregisterValueHistogram(histogram)
        default: break
        }
    }

    package func destroyMeter(_ handler: any MeterHandler) {
        if let gauge = handler as? Prometheus.Gauge { registry.unregisterGauge(gauge) }
    }

    package func destroyTimer(_ handler: any TimerHandler) {
        if let histogram = handler as? SecondsHistogram { histograms.remove(histogram) }
    }
}
