import Foundation

/// A line chart as inline SVG: no script, no stylesheet, no external reference, so the report is
/// one file that opens anywhere (an incident channel, an air-gapped laptop).
struct LoadTestSVGChart {
    struct Series {
        var label: String
        var color: String
        var points: [(x: Double, y: Double)]
    }

    var title: String
    var xLabel: String
    var yLabel: String
    var series: [Series]
    var width: Double = 760
    var height: Double = 260
    /// Plot x as percentiles on a log-of-the-tail scale (latency distributions).
    var logarithmicX = false

    private let margin = (left: 64.0, right: 16.0, top: 28.0, bottom: 40.0)

    func render() -> String {
        let all = series.flatMap(\.points)
        let xs = all.map { transformX($0.x) }
        let minX = xs.min() ?? 0
        let maxX = max(xs.max() ?? 1, minX + 1e-9)
        let maxY = max(all.map(\.y).max() ?? 1, 1e-9) * 1.05
        let plotWidth = width - margin.left - margin.right
        let plotHeight = height - margin.top - margin.bottom
        func px(_ x: Double) -> Double { margin.left + (transformX(x) - minX) / (maxX - minX) * plotWidth }
        func py(_ y: Double) -> Double { margin.top + plotHeight - y / maxY * plotHeight }

        var svg =
            #"<svg role="img" width="\#(Int(width))" height="\#(Int(height))" viewBox="0 0 \#(Int(width)) \#(Int(height))">"#
        svg += #"<title>\#(escape(title))</title>"#
        svg +=
            #"<text x="\#(Int(margin.left))" y="18" font-size="14" font-family="sans-serif" font-weight="bold">\#(escape(title))</text>"#
        svg +=
            #"<rect x="\#(margin.left)" y="\#(margin.top)" width="\#(plotWidth)" height="\#(plotHeight)" fill="none" stroke="gray"/>"#
        for step in 0...4 {
            let y = maxY * Double(step) / 4
            let yPixel = format(py(y))
            svg +=
                #"<line x1="\#(margin.left)" x2="\#(margin.left + plotWidth)" y1="\#(yPixel)" y2="\#(yPixel)" stroke="lightgray"/>"#
            svg +=
                #"<text x="\#(margin.left - 6)" y="\#(yPixel)" font-size="11" font-family="sans-serif" text-anchor="end">\#(label(y))</text>"#
        }
        for step in 0...4 {
            let x = minX + (maxX - minX) * Double(step) / 4
            let xPixel = format(margin.left + plotWidth * Double(step) / 4)
            let value = logarithmicX ? 100 * (1 - pow(10, -x)) : x
            svg +=
                #"<text x="\#(xPixel)" y="\#(format(height - margin.bottom + 16))" font-size="11" font-family="sans-serif" text-anchor="middle">\#(label(value))</text>"#
        }
        svg +=
            #"<text x="\#(format(margin.left + plotWidth / 2))" y="\#(format(height - 6))" font-size="12" font-family="sans-serif" text-anchor="middle">\#(escape(xLabel))</text>"#
        svg +=
            #"<text x="14" y="\#(format(margin.top + plotHeight / 2))" font-size="12" font-family="sans-serif" text-anchor="middle" transform="rotate(-90 14 \#(format(margin.top + plotHeight / 2)))">\#(escape(yLabel))</text>"#
        for (index, line) in series.enumerated() where !line.points.isEmpty {
            let path = line.points.map { "\(format(px($0.x))),\(format(py($0.y)))" }.joined(separator: " ")
            svg += #"<polyline fill="none" stroke="\#(line.color)" stroke-width="1.6" points="\#(path)"/>"#
            let legendX = format(margin.left + plotWidth - 150)
            let legendY = format(margin.top + 14 + Double(index) * 14)
            svg +=
                #"<text x="\#(legendX)" y="\#(legendY)" font-size="11" font-family="sans-serif" fill="\#(line.color)">\#(escape(line.label))</text>"#
        }
        return svg + "</svg>"
    }

    /// For the distribution: percentile p is drawn at -log10(1 - p/100), so 90, 99 and 99.9
    /// are evenly spaced and the tail gets the room it deserves.
    private func transformX(_ x: Double) -> Double {
        guard logarithmicX else { return x }
        return -log10(max(1e-5, 1 - min(x, 99.999) / 100))
    }

    private func label(_ value: Double) -> String {
        if value >= 1000 { return "\(Int(value.rounded()))" }
        if value == value.rounded() { return "\(Int(value))" }
        return format(value)
    }

    private func format(_ value: Double) -> String {
        let scaled = (value * 10).rounded() / 10
        return scaled == scaled.rounded() ? String(Int(scaled)) : String(scaled)
    }

    private func escape(_ text: String) -> String {
        LoadTestHTMLReport.escape(text)
    }
}
