import Foundation
import SalvoAPNs
import SalvoKafka
import SalvoTestSupport
import Testing

@testable import SalvoWorker

/// The configuration's security rules: h2c only to loopback addresses unless `allow_plaintext`, the
/// summary naming each app's transport, one redaction rule for Kafka properties, and a warning for
/// private-key files others can read.
@Suite("Worker configuration security")
struct WorkerConfigurationSecurityTests {
    /// A group id the test process is not a member of.
    static func foreignGroup() -> gid_t {
        var own = [gid_t](repeating: 0, count: Int(max(getgroups(0, nil), 0)))
        own = Array(own.prefix(Int(max(getgroups(Int32(own.count), &own), 0))))
        return (50_000...60_000).map { gid_t($0) }.first { $0 != getegid() && !own.contains($0) } ?? 54_321
    }

    static func setGroup(_ group: gid_t, of path: String) throws {
        guard chown(path, uid_t(bitPattern: -1), group) == 0 else {
            throw TestFailure("chown \(path) to group \(group): errno \(errno)")
        }
    }

    static func load(_ yaml: String, environment: [String: String] = [:]) throws -> LoadedWorkerConfiguration {
        try WorkerConfigurationLoader(environment: environment).load(yaml: yaml, source: "test.yaml")
    }

    static func refusal(_ yaml: String) throws -> String {
        let error = #expect(throws: SalvoWorkerError.self) { try load(yaml) }
        return try #require(error).message
    }

    @Test("h2c to a host that is not a loopback address is refused without allow_plaintext, naming the key")
    func remoteCleartextRefused() throws {
        let fixture = try ConfigurationFixture()
        defer { fixture.remove() }
        for host in ["mock", "10.0.0.7", "192.0.2.1", "api.push.apple.com", "::2", "128.0.0.1"] {
            let yaml = fixture.minimalYAML(app: "    environments: [{host: \"\(host)\", port: 2197, h2c: true}]")
            let message = try Self.refusal(yaml)
            #expect(
                message.hasPrefix(
                    "test.yaml: apps.news.environments[0].h2c: cleartext HTTP/2 to \(host), which is not a loopback address"
                ))
            #expect(message.contains("allow_plaintext: true"))
        }
        // The second environment is the remote one: its index is named.
        let second = fixture.minimalYAML(
            app:
                "    environments: [{host: 127.0.0.1, port: 2197, h2c: true}, {host: mock, port: 2197, behaves_as: sandbox, h2c: true}]"
        )
        #expect(
            try Self.refusal(second).hasPrefix("test.yaml: apps.news.environments[1].h2c: cleartext HTTP/2 to mock"))
    }

    @Test(
        "h2c to loopback addresses loads, and the summary says the pool is plaintext",
        arguments: ["127.0.0.1", "127.8.9.10", "::1", "localhost", "LOCALHOST."])
    func loopbackCleartextAccepted(_ host: String) throws {
        let fixture = try ConfigurationFixture()
        defer { fixture.remove() }
        let loaded = try Self.load(
            fixture.minimalYAML(app: "    environments: [{host: \"\(host)\", port: 2197, h2c: true}]"))
        let pool = try #require(loaded.configuration.apps["news"]).pool.connection
        #expect(!pool.allowsRemotePlaintext)
        guard case .plaintext = pool.transport else {
            Issue.record("h2c: true should select the plaintext transport")
            return
        }
        #expect(loaded.description.contains("over PLAINTEXT h2c (loopback only)"))
    }

    @Test("allow_plaintext lets h2c reach any host, the summary says so, and it needs h2c")
    func allowPlaintext() throws {
        let fixture = try ConfigurationFixture()
        defer { fixture.remove() }
        let loaded = try Self.load(
            fixture.minimalYAML(app: "    environments: [{host: mock, port: 2197, h2c: true, allow_plaintext: true}]"))
        #expect(try #require(loaded.configuration.apps["news"]).pool.connection.allowsRemotePlaintext)
        #expect(loaded.description.contains("over PLAINTEXT h2c (any host: allow_plaintext)"))

        let withoutH2C = try Self.refusal(
            fixture.minimalYAML(app: "    environments: [{host: mock, port: 2197, allow_plaintext: true}]"))
        #expect(withoutH2C.contains("apps.news.environments[0].allow_plaintext"), "\(withoutH2C)")
        #expect(withoutH2C.contains("only together with h2c: true"))
        let disagreeing = try Self.refusal(
            fixture.minimalYAML(
                app: """
                        environments: [{host: mock, port: 2197, h2c: true, allow_plaintext: true}, {host: 127.0.0.1, port: 2198, behaves_as: sandbox, h2c: true}]
                    """))
        #expect(disagreeing.contains("allow_plaintext"), "\(disagreeing)")
    }

    @Test("TLS pools are named as such in the summary")
    func tlsTransportDescribed() throws {
        let fixture = try ConfigurationFixture()
        defer { fixture.remove() }
        let apple = try Self.load(fixture.minimalYAML())
        #expect(apple.description.contains("over TLS, default production"))
        let mock = try Self.load(
            fixture.minimalYAML(
                app:
                    "    environments: [{host: 127.0.0.1, port: 2197, ca_file: \(fixture.caPath), tls_server_name: localhost}]"
            ))
        #expect(mock.description.contains("over TLS (own CA, name localhost)"))
        #expect(!mock.description.contains("PLAINTEXT"))
    }

    @Test(
        "a Kafka property is printed only when known not to be secret, in the summary and in librdkafka's refusal alike"
    )
    func oneRedactionRule() throws {
        let fixture = try ConfigurationFixture()
        defer { fixture.remove() }
        let secrets = [
            "SALVO_KAFKA_PROPERTY_SASL_PASWORD": "misspelled-secret-1",  // unknown name: withheld
            "SALVO_KAFKA_PROPERTY_SASL_PASSWORD": "known-secret-2",
            "SALVO_KAFKA_PROPERTY_SASL_OAUTHBEARER_CLIENT_SECRET": "oauth-secret-3",
            "SALVO_KAFKA_PROPERTY_MY_TOTALLY_NEW_SETTING": "unknown-secret-4",
        ]
        let environment = secrets.merging([
            "SALVO_KAFKA_PROPERTY_SECURITY_PROTOCOL": "sasl_ssl", "SALVO_KAFKA_PROPERTY_SASL_USERNAME": "salvo-user",
        ]) { $1 }
        let loaded = try Self.load(fixture.minimalYAML(), environment: environment)
        let text = loaded.description
        for secret in secrets.values { #expect(!text.contains(secret), "\(secret) printed: \(text)") }
        for name in ["sasl.pasword", "sasl.password", "sasl.oauthbearer.client.secret", "my.totally.new.setting"] {
            #expect(text.contains("\(name)=<redacted>"), "\(name): \(text)")
        }
        #expect(text.contains("security.protocol=sasl_ssl"))
        #expect(text.contains("sasl.username=salvo-user"))
        // The same rule is what the worker's summary and librdkafka's refusals consult.
        for name in [
            "sasl.pasword", "sasl.password", "ssl.key.pem", "ssl.keystore.password", "sasl.jaas.config", "x.y",
        ] {
            #expect(WorkerConfiguration.isSecret(property: name) == !KafkaPropertyRedaction.isPrintable(property: name))
            #expect(!KafkaPropertyRedaction.isPrintable(property: name), "\(name)")
        }
        for name in [
            "bootstrap.servers", "linger.ms", "acks", "fetch.wait.max.ms", "ssl.ca.location", "message.max.bytes",
        ] {
            #expect(KafkaPropertyRedaction.isPrintable(property: name), "\(name)")
        }
        #expect(
            KafkaPropertyRedaction.scrub(
                #"Invalid value "hunter2" for configuration property "sasl.oauthbearer.method""#,
                value: "hunter2", property: "sasl.oauthbearer.method")
                == #"Invalid value "<redacted>" for configuration property "sasl.oauthbearer.method""#)
    }

    @Test(
        "private-key files readable by another group or others are warned about, naming the key; 0600 files are not"
    )
    func keyFilePermissionWarnings() throws {
        let fixture = try ConfigurationFixture()
        defer { fixture.remove() }
        let manager = FileManager.default
        // A group the worker is not in.
        try Self.setGroup(Self.foreignGroup(), of: fixture.p8Path)
        try manager.setAttributes([.posixPermissions: 0o644], ofItemAtPath: fixture.p8Path)
        let open = try Self.load(fixture.minimalYAML())
        #expect(open.warnings.count == 1)
        let warning = try #require(open.warnings.first)
        #expect(
            warning.hasPrefix(
                "apps.news.credential.token.key_file: \(fixture.p8Path) is readable by its group and every user (mode 0644)"
            ))

        try manager.setAttributes([.posixPermissions: 0o640], ofItemAtPath: fixture.p8Path)
        #expect(
            try Self.load(fixture.minimalYAML()).warnings.first?.contains("readable by its group (mode 0640)") == true)
        try manager.setAttributes([.posixPermissions: 0o600], ofItemAtPath: fixture.p8Path)
        #expect(try Self.load(fixture.minimalYAML()).warnings.isEmpty)

        // A symbolic link (how Kubernetes mounts a Secret) is judged by the file it points to.
        let link = "\(fixture.directory)/keys/linked.p8"
        try manager.createSymbolicLink(atPath: link, withDestinationPath: fixture.p8Path)
        let linked = fixture.minimalYAML().replacingOccurrences(
            of: "key_file: \(fixture.p8Path)", with: "key_file: \(link), key_id: \(ConfigurationFixture.keyID)")
        #expect(try Self.load(linked).warnings.isEmpty)

        // What Kubernetes makes of `defaultMode: 0400` with `fsGroup`: 0440, group = the worker's own.
        try Self.setGroup(getegid(), of: fixture.p8Path)
        try manager.setAttributes([.posixPermissions: 0o440], ofItemAtPath: fixture.p8Path)
        #expect(try Self.load(fixture.minimalYAML()).warnings.isEmpty)
        try manager.setAttributes([.posixPermissions: 0o444], ofItemAtPath: fixture.p8Path)
        #expect(
            try Self.load(fixture.minimalYAML()).warnings.first?.contains("readable by every user (mode 0444)") == true)

        // PEM key and PKCS#12 bundle of a certificate credential.
        for path in [fixture.certificateKeyPath, fixture.p12Path] {
            try manager.setAttributes([.posixPermissions: 0o604], ofItemAtPath: path)
        }
        let certificates = """
            kafka:
              brokers: ["localhost:9092"]
            apps:
              chat:
                credential: {certificate: {certificate_file: \(fixture.certificatePath), key_file: \(fixture.certificateKeyPath)}}
              bundle:
                credential: {certificate: {pkcs12_file: \(fixture.p12Path), password_env: CHAT_P12}}
            """
        let warnings = try Self.load(certificates, environment: ["CHAT_P12": ConfigurationFixture.p12Password]).warnings
        #expect(warnings.count == 2, "\(warnings)")
        #expect(
            warnings.contains {
                $0.hasPrefix("apps.bundle.credential.certificate.pkcs12_file: ")
                    && $0.contains("every user (mode 0604)")
            })
        #expect(
            warnings.contains {
                $0.hasPrefix("apps.chat.credential.certificate.key_file: ") && $0.contains("every user (mode 0604)")
            })
        #expect(!warnings.joined().contains(ConfigurationFixture.p12Password))
    }
}
