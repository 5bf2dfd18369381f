import Foundation
import SalvoMockAPNs
import SalvoTestSupport
import Testing

/// Secrets with the real `salvo worker`: no value from a `SALVO_*` variable
/// whose key is not known to be harmless reaches any output — `--check-config`, or a start that
/// fails on it — and a private-key file others can read is warned about.
@Suite("salvo worker prints no secret from the environment", .serialized)
struct SecretRedactionTests {
    /// Values that must never be printed, under names a careless operator might use.
    static let secrets = [
        "SALVO_KAFKA_PROPERTY_SASL_PASWORD": "hunter2-Qz7misspelled",
        "SALVO_KAFKA_PROPERTY_SASL_PASSWORD": "hunter2-Qz7known",
        "SALVO_KAFKA_PROPERTY_SSL_KEYSTORE_PASSWORD": "hunter2-Qz7store",
        "SALVO_KAFKA_PROPERTY_SASL_OAUTHBEARER_CLIENT_SECRET": "hunter2-Qz7client",
        "SALVO_KAFKA_PROPERTY_SOME_VENDOR_TOKEN_SETTING": "hunter2-Qz7vendor",
    ]

    /// A worker configuration with one token app whose key file has `mode`; no broker is reached.
    static func configuration(in directory: URL, keyMode: Int16) throws -> URL {
        let material = try MockTLSMaterial.generate(topic: "com.example.shop")
        _ = try material.write(to: directory.path)
        let key = directory.appendingPathComponent(MockTLSMaterial.FileName.tokenKey(keyID: material.tokenKeyID)).path
        try FileManager.default.setAttributes([.posixPermissions: keyMode], ofItemAtPath: key)
        let yaml = """
            kafka:
              brokers: ["127.0.0.1:9"]
            apps:
              shop:
                bundle_id: com.example.shop
                credential: {token: {key_file: \(key), key_id: \(material.tokenKeyID), team_id: \(material.tokenTeamID)}}
            operations:
              listen: null
            """
        let url = directory.appendingPathComponent("worker.yaml")
        try yaml.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    /// Runs `salvo worker` with `environment` added and returns its exit status and all it printed.
    static func worker(
        _ arguments: [String], environment: [String: String]
    ) async throws -> (status: Int32?, output: String) {
        let process = try BackgroundProcess.salvo("worker", ["worker"] + arguments, environment: environment)
        let status = await process.waitForExit(timeout: .seconds(60))
        let output = process.stdout + process.stderr
        await process.stop()
        return (status, output)
    }

    static func expectNoSecret(in output: String, _ secrets: [String: String] = secrets) {
        for (name, value) in secrets {
            #expect(!output.contains(value), "\(name)'s value was printed:\n\(output)")
            #expect(!output.contains(value.dropFirst("hunter2-".count)), "part of \(name)'s value was printed")
        }
    }

    @Test(
        "--check-config withholds every secret-looking or unknown property from the environment and warns about an open key file"
    )
    func checkConfig() async throws {
        let directory = try ExternalProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try Self.configuration(in: directory, keyMode: 0o644)
        let environment = Self.secrets.merging(["SALVO_KAFKA_PROPERTY_SECURITY_PROTOCOL": "sasl_ssl"]) { $1 }
        let (status, output) = try await Self.worker(["--check-config", file.path], environment: environment)
        #expect(status == 0, "\(output)")
        Self.expectNoSecret(in: output)
        for name in [
            "sasl.pasword", "sasl.password", "ssl.keystore.password", "sasl.oauthbearer.client.secret",
            "some.vendor.token.setting",
        ] {
            #expect(output.contains("\(name)=<redacted>"), "\(name) should be listed as withheld:\n\(output)")
        }
        #expect(output.contains("security.protocol=sasl_ssl"))
        #expect(output.contains("warning: apps.shop.credential.token.key_file: "), "\(output)")
        #expect(output.contains("(mode 0644)"))

        let closed = try Self.configuration(in: directory.appendingPathComponent("closed"), keyMode: 0o600)
        let (_, quiet) = try await Self.worker(["--check-config", closed.path], environment: [:])
        #expect(!quiet.contains("warning:"), "\(quiet)")
    }

    @Test(
        "a start that fails because librdkafka refuses a property from the environment prints the property, not its value",
        arguments: [
            ["SALVO_KAFKA_PROPERTY_SASL_PASWORD": "hunter2-Qz7misspelled"],
            // librdkafka quotes a refused value in its own error text.
            ["SALVO_KAFKA_PROPERTY_SASL_OAUTHBEARER_METHOD": "hunter2-Qz7method"],
            ["SALVO_KAFKA_PROPERTY_SOME_VENDOR_TOKEN_SETTING": "hunter2-Qz7vendor"],
        ])
    func failingStart(_ secret: [String: String]) async throws {
        let directory = try ExternalProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try Self.configuration(in: directory, keyMode: 0o600)
        let (status, output) = try await Self.worker(["--config", file.path], environment: secret)
        #expect(status != nil && status != 0, "the worker should refuse to start:\n\(output)")
        #expect(output.contains("librdkafka rejected"), "\(output)")
        #expect(output.contains("<redacted>"), "\(output)")
        Self.expectNoSecret(in: output, secret)
    }
}
