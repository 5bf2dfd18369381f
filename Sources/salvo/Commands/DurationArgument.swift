import ArgumentParser

/// A duration on the command line: `500ms`, `10s`, `2m`, or a bare number of seconds.
struct DurationArgument: ExpressibleByArgument, CustomStringConvertible, Sendable {
    var duration: Duration
    private let text: String

    init(_ duration: Duration, text: String) {
        self.duration = duration
        self.text = text
    }

    init?(argument: String) {
        let units: [(suffix: String, scale: Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3_600), ("", 1)]
        for unit in units where argument.hasSuffix(unit.suffix) {
            guard let value = Double(argument.dropLast(unit.suffix.count)), value >= 0, value.isFinite else { continue }
            self.init(.milliseconds(Int64(value * unit.scale * 1_000)), text: argument)
            return
        }
        return nil
    }

    var description: String { text }

    static func seconds(_ seconds: Int) -> DurationArgument {
        DurationArgument(.seconds(seconds), text: "\(seconds)s")
    }
}
