/// Refuses keys a scenario type does not know, so a typo in a scenario file (`p99ms`) fails at
/// load time instead of silently leaving a fault switched off. Public because load-test scenarios
/// (`SalvoLoadTest`) hold themselves to the same rule.
public enum StrictKeys {
    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public static func check<Keys: CodingKey & CaseIterable>(_ decoder: any Decoder, allowed: Keys.Type) throws {
        let container = try decoder.container(keyedBy: AnyKey.self)
        let known = Set(Keys.allCases.map(\.stringValue))
        for key in container.allKeys where !known.contains(key.stringValue) {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: container,
                debugDescription: "unknown key \"\(key.stringValue)\"; known: \(known.sorted().joined(separator: ", "))"
            )
        }
    }
}
