import Foundation
import SalvoAPNs
import SalvoKafka
import Testing
import Yams

@testable import SalvoWorker

/// The configurations shipped for Compose and Kubernetes are valid worker configurations, with
/// credential files generated where the deployment would mount them.
@Suite("Deployment configurations")
struct DeploymentConfigurationTests {
    @Test("docker/worker.yaml loads with the mock's generated material")
    func composeConfiguration() throws {
        let fixture = try ConfigurationFixture()
        defer { fixture.remove() }
        try FileManager.default.createDirectory(atPath: "\(fixture.directory)/tls", withIntermediateDirectories: true)
        try fixture.writeP8("tls/AuthKey_MOCKKEY001.p8")
        try fixture.writeCertificate("tls/client.pem", key: "tls/client-key.pem", userID: "com.example.salvo")
        try fixture.writeCertificate("tls/ca.pem", key: "tls/ca-key.pem", userID: nil)
        let yaml = try fixture.repositoryYAML("docker/worker.yaml", replacing: "/etc/salvo/")
        let configuration = try WorkerConfigurationLoader(environment: ["SALVO_KAFKA_BROKERS": "kafka:9092"])
            .load(yaml: yaml, source: "docker/worker.yaml").configuration
        // `loadtest` is the app every load scenario uses (the Compose load test sends for it).
        #expect(Set(configuration.apps.keys) == ["demo", "demo-cert", "loadtest"])
        #expect(configuration.apps["demo-cert"]?.bundleID == "com.example.salvo")
        #expect(
            configuration.apps["demo"]?.endpoints[.production]
                == .custom(host: "mock", port: 2197, behavesAs: .production))
        #expect(configuration.operations == WorkerOperationsListener(host: "0.0.0.0", port: 9100))
    }

    @Test("the Kubernetes ConfigMap's worker.yaml loads with the Secret's files")
    func kubernetesConfiguration() throws {
        let fixture = try ConfigurationFixture()
        defer { fixture.remove() }
        let manifest = try String(
            contentsOfFile: ConfigurationFixture.repositoryFile("ops/kubernetes/configmap.yaml"), encoding: .utf8)
        let configMap = try #require(try Yams.load(yaml: manifest) as? [String: Any])
        let embedded = try #require((configMap["data"] as? [String: String])?["worker.yaml"])
        try FileManager.default.createDirectory(
            atPath: "\(fixture.directory)/credentials", withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: fixture.p8Path, toPath: "\(fixture.directory)/credentials/AuthKey_ABCDE12345.p8")
        try FileManager.default.copyItem(atPath: fixture.p12Path, toPath: "\(fixture.directory)/credentials/chat.p12")
        let yaml = embedded.replacingOccurrences(of: "/etc/salvo/", with: "\(fixture.directory)/")
        let loaded = try WorkerConfigurationLoader(environment: [
            "SALVO_CHAT_P12_PASSWORD": ConfigurationFixture.p12Password, "SALVO_KAFKA_PROPERTY_SASL_PASSWORD": "x",
        ]).load(yaml: yaml, source: "configmap.yaml")
        #expect(Set(loaded.configuration.apps.keys) == ["news", "chat"])
        #expect(loaded.configuration.drainDeadline == .seconds(25))
        #expect(loaded.configuration.kafka.properties["sasl.password"] == "x")
    }
}
