import Prometheus
import Synchronization

/// `/metrics` in Prometheus text format, from the same counters as `/stats`.
///
/// The mock owns its registry instead of bootstrapping the global `MetricsSystem`, so several
/// mocks (or a mock and a worker) can live in one test process. The hot path only bumps the
/// shared atomics; Prometheus counters catch up by the difference at each scrape.
final class MockAPNsMetrics: Sendable {
    private let registry = PrometheusCollectorRegistry()
    private let exported = Mutex<Exported>(Exported())
    private let counters: MockAPNsCounters

    private struct Exported {
        var values: [String: Int] = [:]
    }

    init(counters: MockAPNsCounters) {
        self.counters = counters
    }

    /// The exposition text, after bringing every Prometheus counter up to date.
    func render(scenario: String) -> [UInt8] {
        let stats = self.counters.snapshot(scenario: scenario)
        self.exported.withLock { exported in
            func counter(_ name: String, _ value: Int, labels: [(String, String)] = [], help: String) {
                let key = name + labels.map { "|\($0.0)=\($0.1)" }.joined()
                let delta = value - (exported.values[key] ?? 0)
                let metric = self.registry.makeCounter(
                    descriptor: Self.name(name, unit: "total", help: help), labels: labels)
                if delta > 0 { metric.increment(by: Int64(delta)) }
                exported.values[key] = value
            }
            counter("requests", stats.streamsTotal, help: "Requests received (HTTP/2 streams).")
            counter("accepted", stats.accepted, help: "Notifications answered 200.")
            for (reason, count) in stats.rejected {
                counter("rejected", count, labels: [("reason", reason)], help: "Non-200 answers by APNs reason.")
            }
            counter("connections", stats.connectionsTotal, help: "Connections accepted.")
            counter("goaways", stats.goAwaysSent, help: "GOAWAY frames sent.")
            counter("connection_resets", stats.connectionResets, help: "Connections reset on purpose.")
            counter("stream_resets", stats.streamResets, help: "Requests answered with RST_STREAM.")
            counter("unanswered", stats.unanswered, help: "Requests abandoned before an answer.")
            counter(
                "stream_limit_drops", stats.streamLimitDrops,
                help: "MAX_CONCURRENT_STREAMS lowered to 1 after a rejection.")
            counter("broadcasts_accepted", stats.broadcastsAccepted, help: "Broadcasts answered 200.")
            counter("channel_requests", stats.channelRequests, help: "Channel-management answers.")
        }
        self.registry.makeGauge(descriptor: Self.name("connections_open", help: "Connections open now."))
            .set(Int64(stats.connectionsOpen))
        self.registry.makeGauge(descriptor: Self.name("channels", help: "Live Activity channels that exist now."))
            .set(Int64(stats.channels))
        self.registry.makeGauge(descriptor: Self.name("streams_open", help: "Requests received and not yet answered."))
            .set(Int64(stats.streamsOpen))
        return self.registry.emitToBuffer()
    }

    /// `salvo_mock_apns_<name>[_<unit>]`.
    private static func name(_ name: String, unit: String = "", help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "salvo", subsystem: "mock_apns", metricName: name, unitName: unit, helpText: help)
    }
}
