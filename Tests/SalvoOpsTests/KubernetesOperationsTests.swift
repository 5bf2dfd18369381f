import Foundation
import SalvoTestSupport
import Testing
import Yams

/// KEDA owns the replica count and can authenticate, the probes ask the
/// worker the right questions, and the pods log JSON.
@Suite("Kubernetes: scaling, probes, logs")
struct KubernetesOperationsTests {
    private static func deployment() throws -> [String: Any] {
        try #require(try RepositoryFiles.manifests("ops/kubernetes/deployment.yaml", kind: "Deployment").first)
    }

    private static func container() throws -> [String: Any] {
        let template = try #require((try deployment()["spec"] as? [String: Any])?["template"] as? [String: Any])
        return try #require(((template["spec"] as? [String: Any])?["containers"] as? [[String: Any]])?.first)
    }

    @Test("the Deployment KEDA scales sets no replicas")
    func noReplicas() throws {
        let scaled = try #require(
            try RepositoryFiles.manifests("ops/kubernetes/scaledobject.yaml", kind: "ScaledObject").first)
        let target = ((scaled["spec"] as? [String: Any])?["scaleTargetRef"] as? [String: Any])?["name"] as? String
        let deployment = try Self.deployment()
        #expect(target == (deployment["metadata"] as? [String: Any])?["name"] as? String)
        #expect(
            (deployment["spec"] as? [String: Any])?["replicas"] == nil,
            "kubectl apply would fight KEDA over the replica count")
    }

    @Test("probes: startup on /health/started, liveness on /health/live, readiness on /health/ready")
    func probes() throws {
        let container = try Self.container()
        func path(_ probe: String) -> String? {
            ((container[probe] as? [String: Any])?["httpGet"] as? [String: Any])?["path"] as? String
        }
        #expect(path("startupProbe") == "/health/started")
        #expect(path("livenessProbe") == "/health/live")
        #expect(path("readinessProbe") == "/health/ready")
        // The startup probe allows a minute; liveness tolerates the worker's own 15 s stall limit.
        let startup = try #require(container["startupProbe"] as? [String: Any])
        #expect((startup["periodSeconds"] as? Int ?? 10) * (startup["failureThreshold"] as? Int ?? 3) >= 60)
        let liveness = try #require(container["livenessProbe"] as? [String: Any])
        #expect((liveness["periodSeconds"] as? Int ?? 10) * (liveness["failureThreshold"] as? Int ?? 3) >= 15)
        // Readiness is documented as what the worker does: partitions and not draining, not APNs.
        let text = try RepositoryFiles.text("ops/kubernetes/deployment.yaml")
        #expect(!text.contains("APNs pools connected"))
        #expect(text.contains("at least one partition assigned"))
    }

    @Test(
        "KEDA's TriggerAuthentication reads keys the example Secret has, with values KEDA accepts and librdkafka agrees with"
    )
    func kedaAuthentication() throws {
        let authentication = try #require(
            try RepositoryFiles.manifests("ops/kubernetes/scaledobject.yaml", kind: "TriggerAuthentication").first)
        let references = try #require(
            (authentication["spec"] as? [String: Any])?["secretTargetRef"] as? [[String: String]])
        let secret = try #require(
            try RepositoryFiles.manifests("ops/kubernetes/kafka-secret.example.yaml", kind: "Secret").first)
        #expect((secret["metadata"] as? [String: Any])?["name"] as? String == "salvo-kafka")
        let values = try #require(secret["stringData"] as? [String: String])
        // KEDA's kafka scaler: sasl plaintext | scram_sha256 | scram_sha512 | oauthbearer | gssapi | none; tls enable | disable.
        let kedaParameters: Set = [
            "sasl", "username", "password", "tls", "ca", "cert", "key", "keyPassword", "unsafeSsl",
        ]
        for reference in references {
            #expect(kedaParameters.contains(reference["parameter"] ?? ""), "\(reference)")
            #expect(reference["name"] == "salvo-kafka")
            #expect(values[reference["key"] ?? ""] != nil, "the example Secret has no key \(reference["key"] ?? "")")
        }
        let sasl = try #require(references.first { $0["parameter"] == "sasl" }.flatMap { values[$0["key"]!] })
        #expect(["plaintext", "scram_sha256", "scram_sha512", "oauthbearer", "gssapi", "none"].contains(sasl))
        let tls = try #require(references.first { $0["parameter"] == "tls" }.flatMap { values[$0["key"]!] })
        #expect(["enable", "disable"].contains(tls))

        // The worker's librdkafka settings name the same mechanism and the same TLS choice.
        let properties = try Self.workerKafkaProperties()
        let librdkafka = ["plaintext": "PLAIN", "scram_sha256": "SCRAM-SHA-256", "scram_sha512": "SCRAM-SHA-512"]
        #expect(
            properties["sasl.mechanisms"] == librdkafka[sasl],
            "KEDA \(sasl) vs librdkafka \(properties["sasl.mechanisms"] ?? "none")")
        #expect((properties["security.protocol"]?.hasSuffix("ssl") == true) == (tls == "enable"))

        // Every key the Deployment reads from salvo-kafka is in the example.
        let environment = try #require(try Self.container()["env"] as? [[String: Any]])
        let keys = environment.compactMap { (($0["valueFrom"] as? [String: Any])?["secretKeyRef"] as? [String: Any]) }
            .filter { $0["name"] as? String == "salvo-kafka" }.compactMap { $0["key"] as? String }
        #expect(keys.count >= 2)
        for key in keys {
            #expect(values[key] != nil, "the Deployment reads salvo-kafka/\(key), which the example lacks")
        }
        let kustomization = try RepositoryFiles.text("ops/kubernetes/kustomization.yaml")
        #expect(
            kustomization.contains("kafka-secret.example.yaml")
                && !kustomization.contains("- kafka-secret.example.yaml"))
    }

    @Test("cooldownPeriod is described as what it is: the delay before scaling to zero")
    func cooldownPeriod() throws {
        let text = try RepositoryFiles.text("ops/kubernetes/scaledobject.yaml")
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let index = try #require(
            lines.firstIndex { $0.trimmingCharacters(in: .whitespaces).hasPrefix("cooldownPeriod:") })
        let comment = lines[..<index].reversed().prefix { $0.trimmingCharacters(in: .whitespaces).hasPrefix("#") }
            .joined(separator: " ")
        #expect(comment.contains("zero"), "\(comment)")
        #expect(!comment.contains("before scaling down"), "\(comment)")
    }

    @Test("the pods log JSON: the ConfigMap's worker.yaml sets log_format json")
    func jsonLogs() throws {
        let configMap = try #require(
            try RepositoryFiles.manifests("ops/kubernetes/configmap.yaml", kind: "ConfigMap").first)
        let workerYAML = try #require((configMap["data"] as? [String: String])?["worker.yaml"])
        let worker = try #require(try Yams.load(yaml: workerYAML) as? [String: Any])
        #expect(worker["log_format"] as? String == "json")
        let environment = try #require(try Self.container()["env"] as? [[String: Any]])
        let override = environment.first { $0["name"] as? String == "SALVO_LOG_FORMAT" }?["value"] as? String
        #expect(override == nil || override == "json")
    }

    private static func workerKafkaProperties() throws -> [String: String] {
        let configMap = try #require(
            try RepositoryFiles.manifests("ops/kubernetes/configmap.yaml", kind: "ConfigMap").first)
        let workerYAML = try #require((configMap["data"] as? [String: String])?["worker.yaml"])
        let worker = try #require(try Yams.load(yaml: workerYAML) as? [String: Any])
        return try #require((worker["kafka"] as? [String: Any])?["properties"] as? [String: String])
    }
}
