extension KafkaSASLFrontEnd {
    /// The librdkafka properties of a client of this front end: `security.protocol` from whether
    /// it uses TLS and whether `mechanism` is given (`nil`: no SASL, to see it refused), the SASL
    /// user and password, and `ssl.ca.location` when `caLocation` is given (`nil`: the system's
    /// roots, which do not hold the test CA).
    public func clientProperties(
        mechanism: KafkaSASLMechanism?, user: String, password: String, caLocation: String? = nil
    ) -> [String: String] {
        var properties: [String: String] = [:]
        switch (mechanism, usesTLS) {
        case (nil, false): properties["security.protocol"] = "PLAINTEXT"
        case (nil, true): properties["security.protocol"] = "SSL"
        case (_?, false): properties["security.protocol"] = "SASL_PLAINTEXT"
        case (_?, true): properties["security.protocol"] = "SASL_SSL"
        }
        if let mechanism {
            properties["sasl.mechanisms"] = mechanism.rawValue
            properties["sasl.username"] = user
            properties["sasl.password"] = password
        }
        if let caLocation { properties["ssl.ca.location"] = caLocation }
        return properties
    }
}
