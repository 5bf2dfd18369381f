import Foundation
import Logging
import NIOSSL
import SalvoAPNs
import SalvoKafka
import Testing

@testable import SalvoWorker

@Suite("Worker configuration loader")
struct WorkerConfigurationLoaderTests {
    private let passwordEnvironment = ["SALVO_CHAT_P12_PASSWORD": ConfigurationFixture.p12Password]

    @Test("config/worker.example.yaml loads, and the defaults it shows are the real defaults")
    func exampleLoads() throws {
        let fixture = try ConfigurationFixture()
        defer { fixture.remove() }
        let loaded = try WorkerConfigurationLoader(environment: passwordEnvironment)
            .load(yaml: try fixture.exampleYAML(), source: "worker.example.yaml")
        let configuration = loaded.configuration

        #expect(configuration.kafka.brokers == ["localhost:9092"])
        #expect(configuration.kafka.clientID == "salvo")
        #expect(configuration.kafka.properties == ["statistics.interval.ms": "0"])
        #expect(configuration.groupID == "salvo-worker")
        #expect(configuration.topics == WorkerTopics())
        #expect(configuration.lanes == LaneConfiguration())
        #expect(configuration.retry == RetryScheduler.Configuration())
        #expect(configuration.outcomes == OutcomeClassifier.Configuration())
        #expect(configuration.deviceRateLimit == RateLimit(perSecond: 10, burst: 20))
        #expect(configuration.maximumJobBytes == 1_000_000 - 16_384)
        #expect(configuration.maximumTokens == 500_000)
        #expect(configuration.operations == WorkerOperationsListener())
        #expect(configuration.drainDeadline == .seconds(25))
        let workerDefaults = WorkerConfiguration(
            kafka: configuration.kafka, apps: [:], deviceRateLimit: nil, operations: nil)
        #expect(configuration.commitInterval == workerDefaults.commitInterval)
        #expect(configuration.checkpointInterval == workerDefaults.checkpointInterval)
        #expect(configuration.revokeWait == workerDefaults.revokeWait)
        #expect(loaded.logLevel == .info)
        #expect(loaded.environmentOverrides.isEmpty)

        let news = try #require(configuration.apps["news"])
        #expect(news.bundleID == "com.example.news")
        guard case .token(let token) = news.credential else {
            Issue.record("news should use a token credential, got \(news.credential)")
            return
        }
        #expect(token.keyID == ConfigurationFixture.keyID)
        #expect(token.teamID == ConfigurationFixture.teamID)
        #expect(news.endpoints == [.production: .production, .sandbox: .sandbox])
        #expect(news.defaultEnvironment == .production)
        let defaults = APNsConnectionPool.Configuration()
        #expect(news.pool.connectionCount == defaults.connectionCount)
        #expect(news.pool.maximumStreamsPerConnection == defaults.maximumStreamsPerConnection)
        #expect(news.pool.connection.connectTimeout == defaults.connection.connectTimeout)
        #expect(news.pool.connection.requestTimeout == defaults.connection.requestTimeout)
        #expect(news.pool.connection.keepaliveInterval == defaults.connection.keepaliveInterval)
        #expect(news.pool.connection.keepaliveTimeout == defaults.connection.keepaliveTimeout)
        #expect(news.rateLimit == RateLimit(perSecond: 5_000, burst: 10_000))

        let chat = try #require(configuration.apps["chat"])
        guard case .certificate(let certificate) = chat.credential else {
            Issue.record("chat should use a certificate credential, got \(chat.credential)")
            return
        }
        #expect(certificate.certificateBundleID == ConfigurationFixture.chatBundleID)
        #expect(chat.endpoints == [.sandbox: .custom(host: "mock-apns", port: 2197, behavesAs: .sandbox)])
        #expect(chat.defaultEnvironment == .sandbox)
        #expect(chat.pool.connection.tlsServerName == "localhost")
        guard case .tls(let roots) = chat.pool.connection.transport, case .certificates(let ca) = roots else {
            Issue.record("chat should trust the mock's CA file")
            return
        }
        #expect(ca.count == 1)
        #expect(chat.rateLimit == nil)
    }

    @Test("a file with only brokers and one app gets every documented default")
    func minimalFileGetsDefaults() throws {
        let fixture = try ConfigurationFixture()
        defer { fixture.remove() }
        let configuration = try WorkerConfigurationLoader(environment: [:])
            .load(yaml: fixture.minimalYAML(), source: "minimal.yaml").configuration
        #expect(configuration.groupID == "salvo-worker")
        #expect(configuration.topics == WorkerTopics())
        #expect(configuration.deviceRateLimit == RateLimit(perSecond: 10, burst: 20))
        #expect(configuration.operations == WorkerOperationsListener(host: "127.0.0.1", port: 9100))
        #expect(configuration.lanes.queueDelayTarget == .milliseconds(5))
        let news = try #require(configuration.apps["news"])
        #expect(news.endpoints == [.production: .production])
        #expect(news.defaultEnvironment == .production)
        guard case .tls(let roots) = news.pool.connection.transport, case .default = roots else {
            Issue.record("Apple's gateways need the system trust roots")
            return
        }
        // The key id comes from Apple's file name when not given.
        guard case .token(let token) = news.credential else {
            Issue.record("expected a token credential")
            return
        }
        #expect(token.keyID == ConfigurationFixture.keyID)
    }

    @Test("environment overrides win over the file and are reported by name only")
    func environmentOverridesWin() throws {
        let fixture = try ConfigurationFixture()
        defer { fixture.remove() }
        let environment = [
            "SALVO_KAFKA_BROKERS": "kafka-1:9092, kafka-2:9092",
            "SALVO_KAFKA_CLIENT_ID": "salvo-eu",
            "SALVO_KAFKA_PROPERTY_SECURITY_PROTOCOL": "sasl_ssl",
            "SALVO_KAFKA_PROPERTY_SASL_PASSWORD": "s3cret-value",
            "SALVO_GROUP_ID": "salvo-eu-workers",
            "SALVO_OPERATIONS_LISTEN": "0.0.0.0:9200",
            "SALVO_DRAIN_DEADLINE": "40s",
            "SALVO_LOG_LEVEL": "debug",
            "UNRELATED": "x",
        ]
        let yaml = fixture.minimalYAML(
            top: """
                group_id: from-file
                drain_deadline: 10s
                log_level: warning
                operations: {listen: "127.0.0.1:9100"}
                """)
        let loaded = try WorkerConfigurationLoader(environment: environment).load(yaml: yaml, source: "w.yaml")
        let configuration = loaded.configuration
        #expect(configuration.kafka.brokers == ["kafka-1:9092", "kafka-2:9092"])
        #expect(configuration.kafka.clientID == "salvo-eu")
        #expect(configuration.kafka.properties == ["security.protocol": "sasl_ssl", "sasl.password": "s3cret-value"])
        #expect(configuration.groupID == "salvo-eu-workers")
        #expect(configuration.operations == WorkerOperationsListener(host: "0.0.0.0", port: 9200))
        #expect(configuration.drainDeadline == .seconds(40))
        #expect(loaded.logLevel == .debug)
        #expect(Set(loaded.environmentOverrides) == Set(environment.keys).subtracting(["UNRELATED"]))
        #expect(!String(describing: loaded).contains("s3cret-value"))
        // The start-up line names each overridden key with its source, and the effective value.
        let line = String(describing: loaded)
        for source in [
            "operations.listen from SALVO_OPERATIONS_LISTEN", "group_id from SALVO_GROUP_ID",
            "kafka.properties.sasl.password from SALVO_KAFKA_PROPERTY_SASL_PASSWORD",
            "drain_deadline from SALVO_DRAIN_DEADLINE",
        ] {
            #expect(line.contains(source), "\(source) in \(line)")
        }
        #expect(line.contains("operations: 0.0.0.0:9200"), "\(line)")
    }

    @Test("consumer_properties reach only the consumers and producer_properties only the producer")
    func perClientKindProperties() throws {
        let fixture = try ConfigurationFixture()
        defer { fixture.remove() }
        let yaml = fixture.minimalYAML().replacingOccurrences(
            of: """
                kafka:
                  brokers: ["localhost:9092"]
                """,
            with: """
                kafka:
                  brokers: ["localhost:9092"]
                  properties: {security.protocol: ssl}
                  consumer_properties: {session.timeout.ms: "6000", sasl.password: s3cret-value}
                  producer_properties: {linger.ms: "20"}
                """)
        let loaded = try WorkerConfigurationLoader(environment: [:]).load(yaml: yaml, source: "w.yaml")
        let configuration = loaded.configuration
        #expect(configuration.kafka.properties == ["security.protocol": "ssl"])
        #expect(
            configuration.kafkaConsumerProperties == ["session.timeout.ms": "6000", "sasl.password": "s3cret-value"])
        #expect(configuration.kafkaProducerProperties == ["linger.ms": "20"])
        let description = String(describing: configuration)
        #expect(description.contains("consumer properties: [sasl.password=<redacted>, session.timeout.ms=6000]"))
        #expect(description.contains("producer properties: [linger.ms=20]"))
        #expect(!description.contains("s3cret-value"))
    }

    @Test("SALVO_OPERATIONS_LISTEN=off, null settings and a zero queue-delay target switch features off")
    func featuresSwitchOff() throws {
        let fixture = try ConfigurationFixture()
        defer { fixture.remove() }
        let yaml = fixture.minimalYAML(top: "device_rate_limit: null\ntopics: {outcomes: salvo.outcomes}")
        let configuration = try WorkerConfigurationLoader(environment: ["SALVO_OPERATIONS_LISTEN": "off"])
            .load(yaml: yaml, source: "w.yaml").configuration
        #expect(configuration.operations == nil)
        #expect(configuration.deviceRateLimit == nil)
        #expect(configuration.topics.outcomes == "salvo.outcomes")
        let listenerOff = try WorkerConfigurationLoader(environment: [:])
            .load(yaml: fixture.minimalYAML(top: "operations: {listen: null}"), source: "w.yaml").configuration
        #expect(listenerOff.operations == nil)
        let flightLimitOff = try WorkerConfigurationLoader(environment: [:])
            .load(yaml: fixture.minimalYAML(top: "lanes: {queue_delay_target: 0s}"), source: "w.yaml").configuration
        #expect(flightLimitOff.lanes.queueDelayTarget == nil)
    }

    @Test("PEM certificate with password_file, h2c mock endpoint, rate limit burst default, relative paths")
    func pemCertificateAndRelativePaths() throws {
        let fixture = try ConfigurationFixture()
        defer { fixture.remove() }
        try fixture.write("certs/password.txt", "unused-for-an-unencrypted-key\n")
        let yaml = """
            kafka: {brokers: "a:9092,b:9092"}
            apps:
              chat:
                credential:
                  certificate: {certificate_file: certs/chat.pem, key_file: certs/chat.key, password_file: certs/password.txt}
                environments: [{host: 127.0.0.1, port: 2197, behaves_as: sandbox, ca_file: tls/mock-ca.pem}]
              news:
                bundle_id: com.example.news
                credential: {token: {key_file: keys/AuthKey_ABCDE12345.p8, team_id: TEAM123456}}
                environments: [{host: 127.0.0.1, port: 2198, h2c: true}]
                rate_limit: {per_second: 250.5}
            """
        let path = try fixture.write("worker.yaml", yaml)
        let configuration = try WorkerConfigurationLoader(environment: [:]).load(path: path).configuration
        #expect(configuration.kafka.brokers == ["a:9092", "b:9092"])
        let chat = try #require(configuration.apps["chat"])
        #expect(chat.bundleID == ConfigurationFixture.chatBundleID)
        #expect(chat.defaultEnvironment == .sandbox)
        let news = try #require(configuration.apps["news"])
        guard case .plaintext = news.pool.connection.transport else {
            Issue.record("h2c: true should select the plaintext transport")
            return
        }
        #expect(news.endpoints == [.production: .custom(host: "127.0.0.1", port: 2198, behavesAs: .production)])
        #expect(news.rateLimit == RateLimit(perSecond: 250.5, burst: 251))
    }
}
