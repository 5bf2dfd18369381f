import Foundation
import SalvoTestSupport
import Testing

/// Every YAML and JSON file under docker/ and ops/ parses, and the settings that must agree across
/// files do.
@Suite("Deployment artifacts")
struct DeploymentFileTests {
    static let yamlFiles = RepositoryFiles.files(under: ["docker", "ops"], extensions: ["yaml", "yml"])
    static let jsonFiles = RepositoryFiles.files(under: ["docker", "ops"], extensions: ["json"])

    @Test("the artifacts exist")
    func artifactsExist() {
        let expected = [
            "docker/compose.yaml", "docker/worker.yaml", "ops/kubernetes/configmap.yaml",
            "ops/kubernetes/deployment.yaml",
            "ops/kubernetes/kustomization.yaml", "ops/kubernetes/loadtest-job.yaml",
            "ops/kubernetes/poddisruptionbudget.yaml",
            "ops/kubernetes/scaledobject.yaml", "ops/prometheus/salvo-rules.yaml",
        ]
        for file in expected { #expect(Self.yamlFiles.contains(file), "\(file) missing") }
        #expect(Self.jsonFiles.contains("ops/grafana/salvo-worker.json"))
        for file in ["docker/Dockerfile", "docker/README.md", "ops/RUNBOOK.md"] {
            #expect(FileManager.default.fileExists(atPath: RepositoryFiles.path(file)), "\(file) missing")
        }
    }

    @Test("every YAML file parses, every document is a mapping", arguments: yamlFiles)
    func yamlParses(_ file: String) throws {
        let documents = try RepositoryFiles.yamlDocuments(file)
        #expect(!documents.isEmpty)
        for document in documents { #expect(document is [String: Any], "\(file): a document is not a mapping") }
    }

    @Test("every JSON file parses", arguments: jsonFiles)
    func jsonParses(_ file: String) throws {
        #expect(try RepositoryFiles.json(file) is [String: Any])
    }

    @Test("Dockerfile: two stages, runtime libraries, non-root user, default config, no environment defaults")
    func dockerfile() throws {
        let text = try RepositoryFiles.text("docker/Dockerfile")
        let stages = text.split(separator: "\n").filter { $0.hasPrefix("FROM ") }
        #expect(stages.count == 2)
        #expect(text.contains("ARG SWIFT_IMAGE=swift:6.3-bookworm"))
        #expect(text.contains("ARG RUNTIME_IMAGE=debian:trixie-slim"))
        for package in ["librdkafka1", "libnghttp2-14", "libjemalloc2", "ca-certificates"] {
            #expect(text.contains(package))
        }
        #expect(text.contains("USER salvo:salvo"))
        // The orchestrator probes the port the operator's file configures; the image hard-codes none.
        #expect(!text.contains("HEALTHCHECK"))
        #expect(!text.contains("ENV SALVO_"))
        #expect(text.contains(#"CMD ["worker", "--config", "/etc/salvo/worker.yaml"]"#))
    }

    @Test("compose: KRaft Kafka, topic and TLS one-shots, mock, worker, load test in order")
    func compose() throws {
        let compose = try #require(try RepositoryFiles.yamlDocuments("docker/compose.yaml").first as? [String: Any])
        let services = try #require(compose["services"] as? [String: Any])
        #expect(Set(services.keys) == ["kafka", "topics", "tls", "mock", "worker", "loadtest"])
        let kafka = try #require(services["kafka"] as? [String: Any])
        #expect((kafka["image"] as? String)?.hasPrefix("apache/kafka:") == true)
        let kafkaEnvironment = try #require(kafka["environment"] as? [String: Any])
        #expect(kafkaEnvironment["KAFKA_PROCESS_ROLES"] as? String == "broker,controller")

        func command(_ service: String) throws -> [String] {
            try #require((services[service] as? [String: Any])?["command"] as? [String])
        }
        #expect(try command("topics").starts(with: ["topics", "create", "--brokers", "kafka:9092"]))
        #expect(try command("tls").starts(with: ["mock-apns", "--generate-tls"]))
        #expect(
            try command("loadtest") == [
                "loadtest", "--scenario", "/loadtest/scenarios/smoke.yaml", "--kafka-config", "/etc/salvo/kafka.yaml",
                "--mock-admin",
                "http://mock:9101",
                "--report-dir", "/var/lib/salvo/loadtest-report",
            ])
        #expect(try command("worker") == ["worker", "--config", "/etc/salvo/worker.yaml"])
        func dependencies(_ service: String) -> [String: String] {
            let raw = (services[service] as? [String: Any])?["depends_on"] as? [String: Any] ?? [:]
            return raw.compactMapValues { ($0 as? [String: Any])?["condition"] as? String }
        }
        #expect(dependencies("worker") == ["topics": "service_completed_successfully", "mock": "service_healthy"])
        #expect(dependencies("loadtest") == ["worker": "service_healthy"])
        #expect(dependencies("mock") == ["tls": "service_completed_successfully"])
        let worker = try #require(services["worker"] as? [String: Any])
        #expect(worker["stop_grace_period"] as? String == "40s")
    }

    @Test("Deployment: probes on the worker's endpoints, grace period above the drain deadline, sized resources")
    func deployment() throws {
        let deployment = try #require(
            try RepositoryFiles.manifests("ops/kubernetes/deployment.yaml", kind: "Deployment").first)
        let pod = try #require(
            ((deployment["spec"] as? [String: Any])?["template"] as? [String: Any])?["spec"] as? [String: Any])
        let grace = try #require(pod["terminationGracePeriodSeconds"] as? Int)
        let container = try #require((pod["containers"] as? [[String: Any]])?.first)
        #expect(
            ((container["livenessProbe"] as? [String: Any])?["httpGet"] as? [String: Any])?["path"] as? String
                == "/health/live")
        #expect(
            ((container["readinessProbe"] as? [String: Any])?["httpGet"] as? [String: Any])?["path"] as? String
                == "/health/ready")
        let resources = try #require(container["resources"] as? [String: [String: String]])
        #expect(resources["requests"] == ["cpu": "1", "memory": "256Mi"])
        #expect(resources["limits"] == ["cpu": "2", "memory": "512Mi"])

        // The drain deadline lives in the ConfigMap's worker.yaml.
        let configMap = try #require(
            try RepositoryFiles.manifests("ops/kubernetes/configmap.yaml", kind: "ConfigMap").first)
        let workerYAML = try #require((configMap["data"] as? [String: String])?["worker.yaml"])
        let deadline = try #require(workerYAML.split(separator: "\n").first { $0.hasPrefix("drain_deadline:") })
        let seconds = try #require(
            Int(deadline.split(separator: ":")[1].trimmingCharacters(in: .whitespaces).dropLast()))
        #expect(grace > seconds, "terminationGracePeriodSeconds \(grace) must exceed drain_deadline \(seconds) s")
        #expect(grace == 40)
    }

    @Test("KEDA: both consumer groups, max replicas within the partitions stated")
    func scaledObject() throws {
        let scaled = try #require(
            try RepositoryFiles.manifests("ops/kubernetes/scaledobject.yaml", kind: "ScaledObject").first)
        let spec = try #require(scaled["spec"] as? [String: Any])
        let triggers = try #require(spec["triggers"] as? [[String: Any]])
        let groups = triggers.compactMap { ($0["metadata"] as? [String: Any])?["consumerGroup"] as? String }
        #expect(Set(groups) == ["salvo-worker", "salvo-worker.priority"])
        #expect(triggers.allSatisfy { $0["type"] as? String == "kafka" })
        let text = try RepositoryFiles.text("ops/kubernetes/scaledobject.yaml")
        let partitions = try #require(
            text.components(separatedBy: "salvo topics create --partitions ").dropFirst().first
                .flatMap { Int($0.prefix { $0.isNumber }) })
        let maximum = try #require(spec["maxReplicaCount"] as? Int)
        #expect(maximum <= partitions)
        #expect((spec["minReplicaCount"] as? Int ?? 0) <= maximum)
    }

    @Test("kustomization lists files that exist, and leaves the load test out")
    func kustomization() throws {
        let kustomization = try #require(
            try RepositoryFiles.yamlDocuments("ops/kubernetes/kustomization.yaml").first as? [String: Any])
        let resources = try #require(kustomization["resources"] as? [String])
        for resource in resources {
            #expect(
                FileManager.default.fileExists(atPath: RepositoryFiles.path("ops/kubernetes/\(resource)")),
                "\(resource)")
        }
        #expect(!resources.contains("loadtest-job.yaml"))
        #expect(
            try RepositoryFiles.manifests("ops/kubernetes/poddisruptionbudget.yaml", kind: "PodDisruptionBudget").count
                == 1)
        let job = try #require(try RepositoryFiles.manifests("ops/kubernetes/loadtest-job.yaml", kind: "Job").first)
        let text = try RepositoryFiles.text("ops/kubernetes/loadtest-job.yaml")
        #expect(text.contains("- loadtest") && text.contains("--scenario") && text.contains("--mock-admin"))
        #expect((job["metadata"] as? [String: Any])?["namespace"] as? String == "salvo-staging")
    }

    @Test("every alert has a runbook section")
    func runbookCoversAlerts() throws {
        let rules = try #require(
            try RepositoryFiles.yamlDocuments("ops/prometheus/salvo-rules.yaml").first as? [String: Any])
        let alerts = (rules["groups"] as? [[String: Any]] ?? []).flatMap { $0["rules"] as? [[String: Any]] ?? [] }
            .compactMap { $0["alert"] as? String }
        #expect(alerts.count >= 7)
        let runbook = try RepositoryFiles.text("ops/RUNBOOK.md")
        for alert in alerts {
            #expect(runbook.contains("### \(alert)\n"), "ops/RUNBOOK.md has no section for \(alert)")
        }
    }
}
