import CRdKafka
import Logging
import SalvoPrimitives

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one place where Salvo's typed configuration becomes librdkafka properties and an
/// `rd_kafka_conf_t`.
enum RDKafkaConfig {
    /// Properties every Salvo client sets: logs and errors go to the event queue, never to
    /// librdkafka's own stderr printer or to callbacks on its internal threads.
    static func clientProperties(_ configuration: KafkaClientConfiguration, logLevel: Logger.Level) -> [String: String]
    {
        var properties: [String: String] = [
            "bootstrap.servers": configuration.brokers.joined(separator: ","),
            "client.id": configuration.clientID,
            "log.queue": "true",
            "log_level": String(syslogLevel(logLevel)),
        ]
        if let interval = configuration.statisticsInterval {
            properties["statistics.interval.ms"] = String(interval.wholeMilliseconds)
        }
        return properties
    }

    static func consumerProperties(
        _ configuration: KafkaConsumerConfiguration, logLevel: Logger.Level
    ) -> [String: String] {
        var properties = clientProperties(configuration.client, logLevel: logLevel)
        properties.merge([
            "group.id": configuration.groupID,
            "enable.auto.commit": "false",
            "enable.auto.offset.store": "false",
            "enable.partition.eof": "false",
            "auto.offset.reset": configuration.offsetReset.name,
            "session.timeout.ms": String(configuration.sessionTimeout.wholeMilliseconds),
            "heartbeat.interval.ms": String(configuration.heartbeatInterval.wholeMilliseconds),
            "max.poll.interval.ms": String(configuration.maxPollInterval.wholeMilliseconds),
            "partition.assignment.strategy": configuration.assignmentStrategy.name,
            "queued.max.messages.kbytes": String(configuration.prefetchMaxKilobytes),
            "queued.min.messages": String(configuration.prefetchMinMessages),
            // A fetch response must fit the prefetch bound, or librdkafka would overshoot it.
            "fetch.max.bytes": String(min(52_428_800, configuration.prefetchMaxKilobytes * 1024)),
            "fetch.queue.backoff.ms": String(configuration.prefetchBackoff.wholeMilliseconds),
        ]) { _, typed in typed }
        return properties.merging(configuration.client.properties) { _, raw in raw }.merging(configuration.properties) {
            _, raw in raw
        }
    }

    static func producerProperties(
        _ configuration: KafkaProducerConfiguration, logLevel: Logger.Level
    ) -> [String: String] {
        var properties = clientProperties(configuration.client, logLevel: logLevel)
        properties.merge([
            "enable.idempotence": configuration.idempotent ? "true" : "false",
            "linger.ms": String(configuration.linger.wholeMilliseconds),
            "batch.num.messages": String(configuration.batchMaxMessages),
            "batch.size": String(configuration.batchMaxBytes),
            "compression.codec": configuration.compression.name,
            "queue.buffering.max.messages": String(configuration.queueMaxMessages),
            "queue.buffering.max.kbytes": String(configuration.queueMaxKilobytes),
            "message.timeout.ms": String(configuration.deliveryTimeout.wholeMilliseconds),
            "message.max.bytes": String(configuration.messageMaxBytes),
        ]) { _, typed in typed }
        if configuration.idempotent {
            properties["acks"] = "all"
        }
        return properties.merging(configuration.client.properties) { _, raw in raw }.merging(configuration.properties) {
            _, raw in raw
        }
    }

    /// Admin clients must never create topics as a side effect of asking about them.
    static func adminProperties(_ configuration: KafkaClientConfiguration, logLevel: Logger.Level) -> [String: String] {
        var properties = clientProperties(configuration, logLevel: logLevel)
        properties["allow.auto.create.topics"] = "false"
        return properties.merging(configuration.properties) { _, raw in raw }
    }

    /// Properties newer than the librdkafka Salvo builds against (2.0.2): set when the loaded
    /// library knows them, skipped when it reports them unknown.
    static let versionDependentProperties: Set<String> = ["fetch.queue.backoff.ms"]

    /// Builds a configuration object. The caller owns the result until it hands it to
    /// `rd_kafka_new`, which takes ownership only on success.
    static func makeConf(
        _ properties: [String: String],
        events: Int32,
        skippingIfUnknown optional: Set<String> = versionDependentProperties
    ) throws(KafkaError) -> OpaquePointer {
        guard let conf = rd_kafka_conf_new() else {
            throw .configuration("rd_kafka_conf_new failed")
        }
        for (name, value) in properties.sorted(by: { $0.key < $1.key }) {
            var errorText = [CChar](repeating: 0, count: 512)
            let result = rd_kafka_conf_set(conf, name, value, &errorText, errorText.count)
            if result == RD_KAFKA_CONF_UNKNOWN, optional.contains(name) {
                continue
            }
            guard result == RD_KAFKA_CONF_OK else {
                rd_kafka_conf_destroy(conf)
                let text = KafkaPropertyRedaction.scrub(String(cCharBuffer: errorText), value: value, property: name)
                throw .configuration("librdkafka rejected \(name)=\(redacted(name, value)): \(text)")
            }
        }
        rd_kafka_conf_set_events(conf, events)
        return conf
    }

    /// Every property name the loaded librdkafka knows (global and topic level, aliases included),
    /// read once from its own reference table (`rd_kafka_conf_properties_show`, the text of its
    /// CONFIGURATION.md). Reading the table sets nothing: probing names with `rd_kafka_conf_set`
    /// would run set-time hooks (`plugin.library.paths` loads libraries), and `rd_kafka_conf_get`
    /// calls an unset string property unknown.
    static let knownPropertyNames: Set<String> = {
        var buffer: UnsafeMutablePointer<CChar>?
        var size = 0
        guard let stream = open_memstream(&buffer, &size) else { return [] }
        rd_kafka_conf_properties_show(stream)
        fclose(stream)  // flushes into `buffer`
        defer { free(buffer) }
        guard let buffer else { return [] }
        let table = String(cString: buffer)
        var names: Set<String> = []
        for line in table.split(separator: "\n") {
            // `name   |  *  | range | default | importance | description`
            guard let bar = line.firstIndex(of: "|") else { continue }
            let name = String(line[..<bar].filter { $0 != " " })
            guard !name.isEmpty, name != "Property", !name.hasPrefix("-") else { continue }
            names.insert(name)
        }
        return names
    }()

    /// The value as an error may print it (``KafkaPropertyRedaction``).
    static func redacted(_ name: String, _ value: String) -> String {
        KafkaPropertyRedaction.printable(value, property: name)
    }

    static func syslogLevel(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    static func loggerLevel(syslog level: Int32) -> Logger.Level {
        switch level {
        case ...2: .critical
        case 3: .error
        case 4: .warning
        case 5: .notice
        case 6: .info
        default: .debug
        }
    }
}
