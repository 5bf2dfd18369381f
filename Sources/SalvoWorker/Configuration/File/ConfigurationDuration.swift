/// A duration written the way operators write them: `250ms`, `30s`, `2m`, `1h`, `1.5s`.
///
/// A bare number is refused: `timeout: 30` is ambiguous between seconds and milliseconds, and
/// guessing wrong is a factor of 1,000.
struct ConfigurationDuration: Decodable, Sendable, Hashable {
    var value: Duration

    init(_ value: Duration) {
        self.value = value
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let value = Self.parse(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: Self.rule(text))
        }
        self.value = value
    }

    /// What a bad duration is told.
    static func rule(_ text: String) -> String {
        "\"\(text)\" is not a duration: write a non-negative number with a unit, e.g. 500ms, 30s, 2m, 1h (units: ns, us, ms, s, m, h)"
    }

    private static let units: [(suffix: String, nanoseconds: Double)] = [
        ("ns", 1), ("us", 1e3), ("µs", 1e3), ("ms", 1e6), ("s", 1e9), ("m", 60e9), ("h", 3_600e9),
    ]

    /// nil unless `text` is a non-negative decimal number followed by one unit.
    static func parse(_ text: String) -> Duration? {
        let trimmed = text.filter { !$0.isWhitespace }
        // Longest suffix first, so `ms` is not read as `s` after the number `5m`.
        for (suffix, nanoseconds) in units.sorted(by: { $0.suffix.count > $1.suffix.count }) where trimmed.hasSuffix(suffix) {
            let number = trimmed.dropLast(suffix.count)
            guard !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
                number.filter({ $0 == "." }).count <= 1, let amount = Double(number), amount.isFinite
            else { return nil }
            let total = amount * nanoseconds
            guard total < 1e18 else { return nil }
            return .nanoseconds(Int64(total.rounded()))
        }
        return nil
    }
}
