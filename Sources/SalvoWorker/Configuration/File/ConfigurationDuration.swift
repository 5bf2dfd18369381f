/// A duration written the way operators write them: `250ms`, `30s`, `2m`, `1h`, `1.5s`.
///
/// A bare number is refused: `timeout: 30` is ambiguous between seconds and milliseconds, and
/// guessing wrong is a factor of 1,000. Every duration key has a range (``ConfigurationBounds``),
/// so a duration is only ever read together with it.
struct ConfigurationDuration: Sendable, Hashable {
    var value: Duration

    init(_ value: Duration) {
        self.value = value
    }

    /// What a bad duration is told, with the range of its key.
    static func rule(_ text: String, within range: ClosedRange<Duration>) -> String {
        "\"\(text)\" is not a duration within \(range.configurationText): "
            + "write a number with a unit, e.g. 500ms, 30s, 2m, 1h (units: ns, us, ms, s, m, h)"
    }

    /// `text` as the value of the key at `path`, whose range is `range`; the problem names the
    /// key and the rule `text` breaks.
    init(_ text: String, within range: ClosedRange<Duration>, at path: String) throws(ConfigurationProblem) {
        guard let value = Self.parse(text) else { throw ConfigurationProblem(path, Self.rule(text, within: range)) }
        guard range.contains(value) else { throw ConfigurationProblem(path, range.outOfRange(text)) }
        self.value = value
    }

    private static let units: [(suffix: String, nanoseconds: Double)] = [
        ("ns", 1), ("us", 1e3), ("µs", 1e3), ("ms", 1e6), ("s", 1e9), ("m", 60e9), ("h", 3_600e9),
    ]

    /// Beyond this (about 31 years) no key's range reaches; longer durations read as exactly this,
    /// so that they are refused as out of range rather than overflow.
    private static let longest: Duration = .nanoseconds(1_000_000_000_000_000_000)

    /// nil unless `text` is a non-negative decimal number followed by one unit.
    static func parse(_ text: String) -> Duration? {
        let trimmed = text.filter { !$0.isWhitespace }
        // Longest suffix first, so `ms` is not read as `s` after the number `5m`.
        for (suffix, nanoseconds) in units.sorted(by: { $0.suffix.count > $1.suffix.count })
        where trimmed.hasSuffix(suffix) {
            let number = trimmed.dropLast(suffix.count)
            guard !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
                number.filter({ $0 == "." }).count <= 1, let amount = Double(number)
            else { return nil }
            let total = amount * nanoseconds
            guard total < 1e18 else { return longest }
            return .nanoseconds(Int64(total.rounded()))
        }
        return nil
    }
}
