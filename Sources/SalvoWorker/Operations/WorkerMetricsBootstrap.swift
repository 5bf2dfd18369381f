import Metrics
import Prometheus

/// The worker's Prometheus registry and the swift-metrics factory writing into it.
///
/// `salvo worker` calls ``bootstrapMetricsSystem()`` once per process (swift-metrics allows one
/// bootstrap) and hands ``registry`` to ``WorkerOperationsServer``. Tests build their own
/// instance and use ``factory`` directly, so several workers can share a test process.
public struct WorkerMetricsBootstrap: Sendable {
    public let registry: PrometheusCollectorRegistry
    public let factory: PrometheusMetricsFactory

    /// Buckets of `salvo_end_to_end_latency_seconds`: from a per-user push answered in
    /// milliseconds to a campaign backlog drained over minutes.
    public static let endToEndLatencyBuckets: [Duration] = [
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
        .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2_500), .seconds(5), .seconds(10),
        .seconds(30), .seconds(60), .seconds(300),
    ]

    /// Buckets of `salvo_apns_ping_rtt_seconds`: a healthy gateway answers in tens of milliseconds.
    public static let pingRoundTripBuckets: [Duration] = [
        .milliseconds(1), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
        .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(5),
    ]

    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets = [
            "salvo_end_to_end_latency_seconds": Self.endToEndLatencyBuckets,
            "salvo_apns_ping_rtt_seconds": Self.pingRoundTripBuckets,
        ]
        self.factory = factory
    }

    /// Makes every swift-metrics `Counter`, `Gauge` and `Timer` of the process export here. Call
    /// once per process, before any metric is created.
    public func bootstrapMetricsSystem() {
        MetricsSystem.bootstrap(factory)
    }
}
