import SalvoKafka
import SalvoPrimitives

/// A number or duration as a configuration file writes it, so that a refusal quotes values and
/// ranges in the file's own notation: `1000`, `0.001`, `250ms`, `24h`.
protocol ConfigurationNumber: Comparable, Sendable {
    var configurationText: String { get }
}

extension Int: ConfigurationNumber {
    var configurationText: String { String(self) }
}

extension Double: ConfigurationNumber {
    /// `10000000` rather than `1e+07` or `10000000.0`; `nan` and `inf` as Swift prints them.
    var configurationText: String {
        if isFinite, self == rounded(), abs(self) < 1e15 { return String(Int64(self)) }
        return String(self)
    }
}

extension Duration: ConfigurationNumber {
    /// In the largest unit that divides it (`24h`, `90s`, `250ms`), which the parser reads back.
    var configurationText: String {
        let total = nanoseconds
        guard total != 0 else { return "0s" }
        let units: [(suffix: String, nanoseconds: Int64)] = [
            ("h", 3_600_000_000_000), ("m", 60_000_000_000), ("s", 1_000_000_000), ("ms", 1_000_000), ("us", 1_000),
        ]
        for unit in units where total % unit.nanoseconds == 0 {
            return "\(total / unit.nanoseconds)\(unit.suffix)"
        }
        return "\(total)ns"
    }
}

extension ClosedRange where Bound: ConfigurationNumber {
    /// `1…1000`.
    var configurationText: String { "\(lowerBound.configurationText)…\(upperBound.configurationText)" }

    /// The rule a value outside the range breaks, quoting the value as written:
    /// `4611686018427387904 is out of range 1…1000`.
    func outOfRange(_ written: String) -> String {
        "\(written) is out of range \(configurationText)"
    }

    /// The check of a configuration built in code: throws `key: value is out of range a…b`,
    /// naming the YAML key that sets the value, unless the range holds it.
    func check(_ value: Bound, key: String) throws(SalvoWorkerError) {
        guard contains(value) else { throw .invalidConfiguration("\(key): \(outOfRange(value.configurationText))") }
    }
}
