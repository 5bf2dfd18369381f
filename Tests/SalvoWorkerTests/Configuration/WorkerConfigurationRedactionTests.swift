import Foundation
import Testing

@testable import SalvoWorker

/// Key material and passwords never reach a description, a log line or an error.
@Suite("Worker configuration redaction")
struct WorkerConfigurationRedactionTests {
    @Test("a malformed key file's error does not contain its bytes")
    func malformedKeyFileIsNotEchoed() throws {
        let fixture = try ConfigurationFixture()
        defer { fixture.remove() }
        // A real key with its middle cut out: PEM-looking, unparseable, and full of key bytes.
        let lines = fixture.p8PEM.split(separator: "\n")
        let broken = ([lines[0]] + lines.dropFirst().dropLast().map { $0.dropLast(7) } + [lines[lines.count - 1]])
            .joined(separator: "\n")
        let path = try fixture.write("keys/AuthKey_ZZZZZ12345.p8", broken)
        let error = #expect(throws: SalvoWorkerError.self) {
            try WorkerConfigurationLoader(environment: [:])
                .load(
                    yaml: fixture.minimalYAML().replacingOccurrences(of: fixture.p8Path, with: path), source: "w.yaml")
        }
        let text = "\(try #require(error))"
        #expect(text.contains("apps.news.credential.token"))
        #expect(text.contains("not a P-256 private key"))
        for line in lines.dropFirst().dropLast() {
            #expect(!text.contains(line.prefix(16)), "error leaks key material: \(text)")
        }
        #expect(!text.contains("BEGIN PRIVATE KEY"))
    }

    @Test("the loaded configuration's description holds no key, password or secret property")
    func descriptionHoldsNoSecrets() throws {
        let fixture = try ConfigurationFixture()
        defer { fixture.remove() }
        let environment = [
            "SALVO_CHAT_P12_PASSWORD": ConfigurationFixture.p12Password,
            "SALVO_KAFKA_PROPERTY_SASL_PASSWORD": "kafka-secret-password",
            "SALVO_KAFKA_PROPERTY_SSL_KEY_PEM": "-----BEGIN PRIVATE KEY-----abc",
            "SALVO_KAFKA_PROPERTY_SASL_USERNAME": "salvo-user",
        ]
        let loaded = try WorkerConfigurationLoader(environment: environment)
            .load(yaml: try fixture.exampleYAML(), source: "worker.example.yaml")
        for text in [
            String(describing: loaded), String(describing: loaded.configuration),
            String(reflecting: loaded.configuration),
        ] {
            #expect(!text.contains(ConfigurationFixture.p12Password))
            #expect(!text.contains("kafka-secret-password"))
            #expect(!text.contains("BEGIN"))
            for pem in [fixture.p8PEM, fixture.certificateKeyPEM] {
                for line in pem.split(separator: "\n").dropFirst().dropLast() {
                    #expect(!text.contains(line.prefix(16)))
                }
            }
            #expect(text.contains("sasl.password=<redacted>"))
            #expect(text.contains("sasl.username=salvo-user"))
            #expect(text.contains("com.example.news"))
        }
        #expect(loaded.environmentOverrides.contains("SALVO_KAFKA_PROPERTY_SASL_PASSWORD"))
    }
}
