import NIOSSL
import SalvoAPNs
import SalvoKafka

/// A one-line summary for `--check-config` and the start-up log. Written out by hand (not
/// reflected) so that secrets cannot leak: credentials print only their ids, and a librdkafka
/// property's value prints only when the property is known not to be secret
/// (``KafkaPropertyRedaction``, the same rule librdkafka's error messages go through), so a value
/// from a `SALVO_KAFKA_PROPERTY_*` variable with a misspelled name prints as `<redacted>`. Each app
/// says how its pools connect, and cleartext ones say so in capitals.
extension WorkerConfiguration: CustomStringConvertible {
    public var description: String {
        let properties = Self.redacted(kafka.properties)
        let consumerProperties = Self.optionalSection("consumer properties", kafkaConsumerProperties)
        let producerProperties = Self.optionalSection("producer properties", kafkaProducerProperties)
        let apps = apps.sorted { $0.key < $1.key }.map { name, app in
            let endpoints = app.endpoints.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.value)" }
            let rate = app.rateLimit.map { ", rate \($0)" } ?? ""
            return "\(name): \(app.bundleID) via \(app.credential) to [\(endpoints.joined(separator: ", "))] "
                + "over \(Self.transport(app.pool.connection)), "
                + "default \(app.defaultEnvironment.rawValue), \(app.pool.connectionCount) connection(s)\(rate)"
        }
        let operations = operations.map { "\($0.host):\($0.port)" } ?? "off"
        let start =
            startFrom.map { "\($0)" } ?? "records up to 1h old (a new group on an older backlog refuses to start)"
        let state =
            "campaign control \(topics.followsControl ? topics.control : "off"), "
            + "checkpoints \(topics.keepsCheckpoints ? topics.progress : "off")"
        return "WorkerConfiguration(brokers: \(kafka.brokers.joined(separator: ",")), client id: \(kafka.clientID), "
            + "properties: [\(properties.joined(separator: ", "))]\(consumerProperties)\(producerProperties), group: \(groupID), "
            + "start from: \(start), "
            + "topics: \(topics.all.joined(separator: ", ")), \(state), apps: {\(apps.joined(separator: "; "))}, "
            + "lanes: \(lanes.priorityWeight):\(lanes.campaignWeight), operations: \(operations), drain deadline: \(drainDeadline))"
    }

    /// `TLS`, `TLS (own CA, name localhost)`, or `PLAINTEXT h2c (loopback only)` /
    /// `PLAINTEXT h2c (any host: allow_plaintext)`.
    static func transport(_ connection: APNsConnection.Configuration) -> String {
        switch connection.transport {
        case .plaintext:
            return connection.allowsRemotePlaintext
                ? "PLAINTEXT h2c (any host: allow_plaintext)" : "PLAINTEXT h2c (loopback only)"
        case .tls(let roots):
            var details: [String] = []
            if roots != .default { details.append("own CA") }
            if let name = connection.tlsServerName { details.append("name \(name)") }
            return details.isEmpty ? "TLS" : "TLS (\(details.joined(separator: ", ")))"
        }
    }

    /// `, label: [a=1, b=2]`, or nothing for an empty map.
    private static func optionalSection(_ label: String, _ properties: [String: String]) -> String {
        properties.isEmpty ? "" : ", \(label): [\(redacted(properties).joined(separator: ", "))]"
    }

    static func redacted(_ properties: [String: String]) -> [String] {
        properties.sorted { $0.key < $1.key }.map { name, value in
            "\(name)=\(KafkaPropertyRedaction.printable(value, property: name))"
        }
    }

    /// Whether a librdkafka property's value is withheld: ``KafkaPropertyRedaction``'s rule.
    static func isSecret(property name: String) -> Bool {
        !KafkaPropertyRedaction.isPrintable(property: name)
    }
}
