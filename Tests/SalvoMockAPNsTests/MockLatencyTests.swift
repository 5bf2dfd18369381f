import Testing

@testable import SalvoMockAPNs

@Suite("MockLatency: the distributions match their parameters")
struct MockLatencyTests {
    private func samples(_ latency: MockLatency, count: Int = 20_000) -> [Double] {
        var random = MockRandom(seed: 42)
        return (0..<count).map { _ in Double(latency.sampleNanoseconds(using: &random)) / 1e6 }.sorted()
    }

    @Test("none and fixed")
    func fixed() {
        var random = MockRandom(seed: 1)
        #expect(MockLatency.none.sampleNanoseconds(using: &random) == 0)
        #expect(MockLatency.fixed(milliseconds: 2.5).sampleNanoseconds(using: &random) == 2_500_000)
    }

    @Test("uniform stays within its bounds and covers them")
    func uniform() {
        let values = self.samples(.uniform(minimumMilliseconds: 10, maximumMilliseconds: 20))
        #expect(values.first! >= 10 && values.last! <= 20)
        #expect(values.first! < 10.1 && values.last! > 19.9)
    }

    @Test("log-normal has the median and 99th percentile it was given")
    func logNormal() {
        let values = self.samples(.logNormal(p50Milliseconds: 20, p99Milliseconds: 200))
        let p50 = values[values.count / 2]
        let p99 = values[values.count * 99 / 100]
        #expect(abs(p50 - 20) < 1.5, "p50 \(p50)")
        #expect(abs(p99 - 200) < 25, "p99 \(p99)")
    }
}
