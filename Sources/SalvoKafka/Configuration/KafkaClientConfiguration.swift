/// Settings shared by producers, consumers and admin clients.
///
/// Typed fields cover what Salvo relies on; everything else (TLS `security.protocol`, `ssl.*`,
/// `sasl.*`, `debug`, ...) goes through `properties`, which are passed to librdkafka unchanged
/// and win over the typed fields, so operators can tune anything librdkafka documents.
public struct KafkaClientConfiguration: Sendable, Hashable {
    /// Bootstrap brokers as `host:port`. Required.
    public var brokers: [String]
    /// Shown in broker logs and quotas. Default: `"salvo"`.
    public var clientID: String
    /// How often librdkafka reports statistics JSON to `statisticsHandler` consumers; `nil` turns
    /// them off. Default: `nil`.
    public var statisticsInterval: Duration?
    /// Raw librdkafka properties applied last. Default: empty.
    public var properties: [String: String]

    public init(brokers: [String], clientID: String = "salvo", properties: [String: String] = [:]) {
        self.brokers = brokers
        self.clientID = clientID
        self.statisticsInterval = nil
        self.properties = properties
    }

    /// Parses a comma-separated bootstrap list such as `"a:9092,b:9092"`.
    public init(bootstrapServers: String, clientID: String = "salvo", properties: [String: String] = [:]) {
        let brokers = bootstrapServers.split(separator: ",").map { $0.trimmingWhitespace() }.filter { !$0.isEmpty }
        self.init(brokers: brokers, clientID: clientID, properties: properties)
    }

    /// The one validation place for the shared settings.
    func validate() throws(KafkaError) {
        guard !brokers.isEmpty else { throw .configuration("no brokers configured") }
        for broker in brokers where broker.contains(where: { $0 == " " || $0 == "," }) {
            throw .configuration("invalid broker address '\(broker)'")
        }
        guard !clientID.isEmpty else { throw .configuration("client id must not be empty") }
        if let statisticsInterval, statisticsInterval < .milliseconds(1) {
            throw .configuration("statistics interval must be positive")
        }
    }
}

extension Substring {
    func trimmingWhitespace() -> String {
        String(self.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
