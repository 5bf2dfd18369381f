/// A one-line summary for the start-up log. Written out by hand (not reflected) so that secrets
/// cannot leak: credentials print only their ids, and librdkafka properties that may hold a
/// secret (`sasl.password`, `ssl.key.pem`, …) print as `<redacted>`.
extension WorkerConfiguration: CustomStringConvertible {
    public var description: String {
        let properties = Self.redacted(kafka.properties)
        let consumerProperties = Self.optionalSection("consumer properties", kafkaConsumerProperties)
        let producerProperties = Self.optionalSection("producer properties", kafkaProducerProperties)
        let apps = apps.sorted { $0.key < $1.key }.map { name, app in
            let endpoints = app.endpoints.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.value)" }
            let rate = app.rateLimit.map { ", rate \($0)" } ?? ""
            return "\(name): \(app.bundleID) via \(app.credential) to [\(endpoints.joined(separator: ", "))], "
                + "default \(app.defaultEnvironment.rawValue), \(app.pool.connectionCount) connection(s)\(rate)"
        }
        let operations = operations.map { "\($0.host):\($0.port)" } ?? "off"
        return "WorkerConfiguration(brokers: \(kafka.brokers.joined(separator: ",")), client id: \(kafka.clientID), "
            + "properties: [\(properties.joined(separator: ", "))]\(consumerProperties)\(producerProperties), group: \(groupID), "
            + "topics: \(topics.all.joined(separator: ", ")), apps: {\(apps.joined(separator: "; "))}, "
            + "lanes: \(lanes.priorityWeight):\(lanes.campaignWeight), operations: \(operations), drain deadline: \(drainDeadline))"
    }

    /// `, label: [a=1, b=2]`, or nothing for an empty map.
    private static func optionalSection(_ label: String, _ properties: [String: String]) -> String {
        properties.isEmpty ? "" : ", \(label): [\(redacted(properties).joined(separator: ", "))]"
    }

    private static func redacted(_ properties: [String: String]) -> [String] {
        properties.sorted { $0.key < $1.key }.map { name, value in "\(name)=\(isSecret(property: name) ? "<redacted>" : value)" }
    }

    /// librdkafka properties whose values are credentials.
    static func isSecret(property name: String) -> Bool {
        let lowered = name.lowercased()
        return ["password", "secret", "key", "token", "oauthbearer.config", "jaas"].contains { lowered.contains($0) }
    }
}
