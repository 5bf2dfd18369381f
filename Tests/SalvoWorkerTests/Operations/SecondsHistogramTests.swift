import Metrics
import Testing

@testable import SalvoWorker

@Suite("SecondsHistogram")
struct SecondsHistogramTests {
    private static func lines(_ registry: SecondsHistogramRegistry) -> [String] {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return String(decoding: buffer, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    @Test("buckets are cumulative, a bound is inclusive, +Inf, _sum and _count follow")
    func exposition() {
        let registry = SecondsHistogramRegistry()
        let histogram = registry.histogram(
            name: "salvo_x_seconds", help: "Help with a \\ and\na new line.", labels: [("pool", "a")],
            buckets: [.milliseconds(10), .milliseconds(1)])
        for nanoseconds: Int64 in [500_000, 1_000_000, 1_000_001, 7_000_000, 2_000_000_000] {
            histogram.recordNanoseconds(nanoseconds)
        }
        #expect(
            Self.lines(registry) == [
                #"# HELP salvo_x_seconds Help with a \\ and\na new line."#,
                "# TYPE salvo_x_seconds histogram",
                #"salvo_x_seconds_bucket{pool="a",le="0.001"} 2"#,
                #"salvo_x_seconds_bucket{pool="a",le="0.01"} 4"#,
                #"salvo_x_seconds_bucket{pool="a",le="+Inf"} 5"#,
                #"salvo_x_seconds_sum{pool="a"} 2.009500001"#,
                #"salvo_x_seconds_count{pool="a"} 5"#,
            ])
    }

    @Test("one family per name, series by labels (escaped), the same labels the same histogram, removal")
    func families() {
        let registry = SecondsHistogramRegistry()
        let buckets: [Duration] = [.seconds(1)]
        let first = registry.histogram(name: "salvo_y_seconds", help: "", labels: [("lane", "b\"q")], buckets: buckets)
        let again = registry.histogram(name: "salvo_y_seconds", help: "", labels: [("lane", "b\"q")], buckets: buckets)
        let other = registry.histogram(name: "salvo_y_seconds", help: "", labels: [], buckets: buckets)
        #expect(first === again)
        first.recordNanoseconds(3)
        again.recordNanoseconds(4)
        other.recordNanoseconds(2_000_000_000)
        #expect(
            Self.lines(registry) == [
                "# TYPE salvo_y_seconds histogram",
                #"salvo_y_seconds_bucket{le="1.0"} 0"#,
                #"salvo_y_seconds_bucket{le="+Inf"} 1"#,
                "salvo_y_seconds_sum 2.0",
                "salvo_y_seconds_count 1",
                #"salvo_y_seconds_bucket{lane="b\"q",le="1.0"} 2"#,
                #"salvo_y_seconds_bucket{lane="b\"q",le="+Inf"} 2"#,
                #"salvo_y_seconds_sum{lane="b\"q"} 7e-09"#,
                #"salvo_y_seconds_count{lane="b\"q"} 2"#,
            ])
        registry.remove(other)
        registry.remove(first)
        #expect(Self.lines(registry).isEmpty)
    }

    @Test("observations from many threads at once are all counted")
    func concurrentRecording() async {
        let registry = SecondsHistogramRegistry()
        let histogram = registry.histogram(
            name: "salvo_z_seconds", help: "", labels: [], buckets: [.milliseconds(1), .milliseconds(2)])
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for index in 0..<10_000 { histogram.recordNanoseconds(Int64((task + index) % 3) * 1_000_000) }
                }
            }
        }
        let (cumulative, sum) = histogram.snapshot
        #expect(cumulative.last == 80_000)
        #expect(cumulative[1] == 80_000)
        var milliseconds = 0
        for task in 0..<8 {
            for index in 0..<10_000 { milliseconds += (task + index) % 3 }
        }
        #expect(sum == Double(milliseconds) / 1e3)
    }

    @Test("the worker's factory makes timers of this kind and exposes them with the registry")
    func throughTheFactory() {
        let bootstrap = WorkerMetricsBootstrap()
        let timer = Metrics.Timer(
            label: "salvo_end_to_end_latency_seconds", dimensions: [("lane", "campaign")], factory: bootstrap.factory)
        timer.recordNanoseconds(40_000_000)
        #expect(bootstrap.emitToString().contains(#"salvo_end_to_end_latency_seconds_count{lane="campaign"} 1"#))
        timer.destroy()
        #expect(!bootstrap.emitToString().contains("salvo_end_to_end_latency_seconds"))
    }
}
