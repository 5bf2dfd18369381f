import ArgumentParser

/// A duration on the command line: `500ms`, `10s`, `2m`, `1h`, or a bare number of seconds, at
/// most ``maximumSeconds``. Anything else (a negative, NaN or infinite number, `1e300`) is a usage
/// error naming the flag, never a trap in the conversion to `Duration`.
struct DurationArgument: ExpressibleByArgument, CustomStringConvertible, Sendable {
    var duration: Duration
    private let text: String

    /// Longest duration accepted: one week. No command waits longer for anything.
    static let maximumSeconds: Double = 7 * 86_400

    init(_ duration: Duration, text: String) {
        self.duration = duration
        self.text = text
    }

    init?(argument: String) {
        let units: [(suffix: String, scale: Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3_600), ("", 1)]
        for unit in units where argument.hasSuffix(unit.suffix) {
            guard let value = Double(argument.dropLast(unit.suffix.count)) else { continue }
            let seconds = value * unit.scale
            // NaN fails both comparisons.
            guard seconds >= 0, seconds <= Self.maximumSeconds else { return nil }
            self.init(.milliseconds(Int64((seconds * 1_000).rounded())), text: argument)
            return
        }
        return nil
    }

    var description: String { text }

    static func seconds(_ seconds: Int) -> DurationArgument {
        DurationArgument(.seconds(seconds), text: "\(seconds)s")
    }

    /// Whole milliseconds, for the settings that take them (`fetch.wait.max.ms`, the mock's latency).
    var milliseconds: Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * 1_000 + Int(attoseconds / 1_000_000_000_000_000)
    }
}
