/// The one rule for printing a librdkafka property's value, wherever Salvo prints one (a worker's
/// configuration summary, `--check-config`, librdkafka refusing a property at start-up).
///
/// A value is printed only when the property is known not to be secret: librdkafka knows its name
/// (the loaded library's own table, aliases included) and the name says nothing of a credential.
/// Everything else prints as ``marker``: `sasl.password`, and also a misspelled `sasl.pasword`, an
/// unknown property from a `SALVO_KAFKA_PROPERTY_*` variable, or one a future librdkafka adds.
/// Why an allow-rule: a deny-list of substrings misses every misspelling of a secret's name, and
/// a typo is exactly when the value gets printed (in the error naming the unknown property).
public enum KafkaPropertyRedaction {
    /// What a withheld value prints as.
    public static let marker = "<redacted>"

    /// Name parts of properties that hold credentials or may embed them (`sasl.password`,
    /// `ssl.key.pem`, `ssl.keystore.password`, `sasl.oauthbearer.client.secret`,
    /// `sasl.oauthbearer.config`, `sasl.jaas.config`, …). Key *locations* are withheld too: a
    /// path is not a secret, but the rule stays simple enough to check by eye.
    static let secretNameParts = ["password", "secret", "key", "token", "oauthbearer", "jaas", "credential"]

    /// Whether `property`'s value may be printed.
    public static func isPrintable(property name: String) -> Bool {
        let lowered = name.lowercased()
        guard !secretNameParts.contains(where: { lowered.contains($0) }) else { return false }
        return RDKafkaConfig.knownPropertyNames.contains(name)
    }

    /// `value`, or ``marker`` when `property` is not printable.
    public static func printable(_ value: String, property name: String) -> String {
        isPrintable(property: name) ? value : marker
    }

    /// `text` (librdkafka's own words about `property`) with any copy of a withheld `value` replaced
    /// by ``marker``: librdkafka quotes a refused value in its error (`Invalid value "…" for
    /// configuration property "…"`).
    public static func scrub(_ text: String, value: String, property name: String) -> String {
        guard !value.isEmpty, !isPrintable(property: name) else { return text }
        return text.replacing(value, with: marker)
    }
}
