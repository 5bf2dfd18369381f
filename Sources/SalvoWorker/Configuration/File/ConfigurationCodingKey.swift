/// Any key of a YAML mapping, so a section can list the keys it was given and refuse those it does
/// not know: a typo (`conections: 8`) must fail at start, not silently keep the default.
struct ConfigurationCodingKey: CodingKey, Hashable {
    var stringValue: String
    var intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        self.intValue = nil
    }

    init?(intValue: Int) {
        self.stringValue = String(intValue)
        self.intValue = intValue
    }
}

extension Decoder {
    /// The section's keyed container, after checking that every key present is one of `Keys`.
    /// The error's coding path ends at the unknown key, so the message names its full path.
    func strictContainer<Keys: CodingKey & CaseIterable>(keyedBy keys: Keys.Type) throws -> KeyedDecodingContainer<Keys> {
        let everything = try self.container(keyedBy: ConfigurationCodingKey.self)
        let known = Keys.allCases.map(\.stringValue)
        for key in everything.allKeys where !known.contains(key.stringValue) {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: everything,
                debugDescription: "unknown key (known here: \(known.joined(separator: ", ")))")
        }
        return try self.container(keyedBy: Keys.self)
    }
}

extension KeyedDecodingContainer {
    /// Tells apart a key left out (keep the default) from a key set to `null` (switch the feature
    /// off), which `decodeIfPresent` cannot.
    func decodeSetting<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> ConfigurationSetting<T> {
        guard contains(key) else { return .absent }
        if try decodeNil(forKey: key) { return .disabled }
        return .value(try decode(type, forKey: key))
    }
}
