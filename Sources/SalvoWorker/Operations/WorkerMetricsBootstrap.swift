import Metrics
import Prometheus

/// The worker's Prometheus registry and the swift-metrics factory writing into it.
///
/// `salvo worker` calls ``bootstrapMetricsSystem()`` once per process (swift-metrics allows one
/// bootstrap) and hands ``registry`` to ``WorkerOperationsServer``. Tests build their own
/// instance and use ``factory`` directly, so several workers can share a test process.
package struct WorkerMetricsBootstrap: Sendable {
    package let registry: PrometheusCollectorRegistry
    /// Every family gets its `# HELP` line from ``WorkerMetricCatalog``.
    package let factory: WorkerMetricsFactory

    package init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        self.factory = WorkerMetricsFactory(
            registry: registry, help: WorkerMetricCatalog.help, durationBuckets: WorkerMetricCatalog.durationBuckets)
    }

    /// The Prometheus text of every metric: swift-prometheus's registry, then the timers'
    /// histograms (``SecondsHistogramRegistry``).
    package func emitToBuffer() -> [UInt8] {
        var buffer = registry.emitToBuffer()
        factory.histograms.emit(into: &buffer)
        return buffer
    }

    package func emitToString() -> String {
        String(decoding: emitToBuffer(), as: UTF8.self)
    }

    /// Makes every swift-metrics `Counter`, `Gauge` and `Timer` of the process export here. Call
    /// once per process, before any metric is created.
    package func bootstrapMetricsSystem() {
        MetricsSystem.bootstrap(factory)
    }

    /// `salvo_build_info{version, librdkafka, nghttp2} 1`: which build and which C libraries a
    /// worker runs, to compare across a fleet (`salvo version` prints the same).
    package func publishBuildInfo(version: String, librdkafka: String, nghttp2: String) {
        Metrics.Gauge(
            label: "salvo_build_info",
            dimensions: [("version", version), ("librdkafka", librdkafka), ("nghttp2", nghttp2)],
            factory: factory
        ).record(1)
    }
}
