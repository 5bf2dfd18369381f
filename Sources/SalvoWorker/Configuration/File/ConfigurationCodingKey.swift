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
    func strictContainer<Keys: CodingKey & CaseIterable>(keyedBy keys: Keys.Type) throws -> KeyedDecodingContainer<Keys>
    {
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

extension KeyedDecodingContainer {
    /// A number of a key with a range (``ConfigurationBounds``), or nil when the key is left out.
    /// A value outside the range, or one that is no `T` at all (an integer beyond 64 bits), is
    /// refused with the key's path, the value as written and the range.
    func decodeIfPresent<T: Decodable & ConfigurationNumber>(
        _ type: T.Type, forKey key: Key, within range: ClosedRange<T>
    ) throws -> T? {
        let value: T?
        do {
            value = try decodeIfPresent(type, forKey: key)
        } catch DecodingError.typeMismatch {
            let name = T.self == Int.self ? "an integer" : "a number"
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self, debugDescription: "expected \(name) within \(range.configurationText)")
        }
        guard let value else { return nil }
        guard range.contains(value) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self, debugDescription: range.outOfRange(value.configurationText))
        }
        return value
    }

    /// The same for a required key.
    func decode<T: Decodable & ConfigurationNumber>(
        _ type: T.Type, forKey key: Key, within range: ClosedRange<T>
    ) throws -> T {
        guard let value = try decodeIfPresent(type, forKey: key, within: range) else {
            // Left out or null: the unbounded decode says which, as for any other key.
            return try decode(type, forKey: key)
        }
        return value
    }

    /// A duration of a key with a range, or nil when the key is left out.
    func decodeIfPresent(
        _ type: ConfigurationDuration.Type, forKey key: Key, within range: ClosedRange<Duration>
    ) throws -> ConfigurationDuration? {
        guard let text = try decodeIfPresent(String.self, forKey: key) else { return nil }
        do throws(ConfigurationProblem) {
            return try ConfigurationDuration(text, within: range, at: "")
        } catch {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: error.rule)
        }
    }
}
