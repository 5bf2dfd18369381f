import Foundation
import SalvoTestSupport
import Testing

/// The load test shipped with the Compose stack and the Kubernetes Job passes
/// where it is shipped. docker/compose.yaml's own commands run as local processes against the test
/// broker (``ComposeStack``: host names, ports and container paths rewritten, nothing else), and
/// the Kubernetes manifests are held to the same commands.
@Suite("docker/compose.yaml and the Kubernetes load test", .serialized)
struct ComposeStackTests {
    /// The topics `salvo topics create` makes without `--prefix`, which the stack uses.
    static let defaultTopics = [
        "salvo.jobs", "salvo.jobs.priority", "salvo.feedback", "salvo.retry", "salvo.dlq", "salvo.outcomes",
    ]

    @Test("topics, tls, mock, worker and loadtest with Compose's exact commands: the smoke load test PASSes")
    func composeStackPasses() async throws {
        try await withCLITestCluster { cluster in
            cluster.adopt(Self.defaultTopics)
            let root = try ExternalProcess.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: root) }
            let stack = try ComposeStack(file: try ComposeFile(), brokers: cluster.brokers, root: root)
            let result: (name: String, status: Int32, stdout: String, stderr: String)
            do {
                result = try await stack.run(finalTimeout: .seconds(150))
            } catch {
                await stack.stop()
                throw error
            }
            let workerLog = stack.running.first { $0.name == "worker" }?.stderr ?? ""
            await stack.stop()
            print(result.stdout)
            #expect(result.name == "loadtest")
            #expect(
                result.status == 0,
                "loadtest exited \(result.status)\n\(result.stdout.suffix(4_000))\n\(result.stderr.suffix(2_000))\nworker:\n\(workerLog.suffix(2_000))"
            )
            #expect(result.stdout.contains("RESULT: PASS"))
            #expect(result.stdout.contains("objectives"), "smoke declares objectives; the report shows them")
            let report = root.appendingPathComponent("volumes/reports/loadtest-report")
            for name in ["summary.txt", "report.json", "report.html"] {
                #expect(
                    FileManager.default.fileExists(atPath: report.appendingPathComponent(name).path),
                    "\(name) not in the reports volume")
            }
        }
    }

    /// Compose's host names and the staging cluster's: the only difference allowed.
    static let clusterHosts = [
        "kafka:9092": "kafka-bootstrap.kafka-staging.svc:9092",
        "mock:9101": "salvo-mock-apns.salvo-staging.svc:9101",
    ]

    @Test(
        "the Kubernetes Job's arguments are Compose's loadtest command; the staging mock's are Compose's mock command")
    func kubernetesMatchesCompose() throws {
        let compose = try ComposeFile()
        let loadtest = try #require(compose.services["loadtest"]).command.map { argument in
            Self.clusterHosts.reduce(argument) { $0.replacingOccurrences(of: $1.key, with: $1.value) }
        }
        let job = try #require(try RepositoryFiles.manifests("ops/kubernetes/loadtest-job.yaml", kind: "Job").first)
        let jobPod = try Self.podSpec(job)
        let jobContainer = try #require((jobPod["containers"] as? [[String: Any]])?.first)
        #expect(jobContainer["args"] as? [String] == loadtest)

        // The report directory is on a writable volume: the root filesystem is read-only.
        let reportDirectory = try #require(loadtest.drop { $0 != "--report-dir" }.dropFirst().first)
        let mounts = (jobContainer["volumeMounts"] as? [[String: Any]] ?? []).compactMap { $0["mountPath"] as? String }
        #expect(
            mounts.contains { reportDirectory.hasPrefix($0 + "/") },
            "\(reportDirectory) is on no mounted volume: \(mounts)")
        #expect((jobContainer["securityContext"] as? [String: Any])?["readOnlyRootFilesystem"] as? Bool == true)

        let mock = try #require(
            try RepositoryFiles.manifests("ops/kubernetes/staging-mock/deployment.yaml", kind: "Deployment").first)
        let mockContainer = try #require((try Self.podSpec(mock)["containers"] as? [[String: Any]])?.first)
        #expect(mockContainer["args"] as? [String] == compose.services["mock"]?.command)

        // The host the Job reads deliveries from is the staging Service, on the admin port.
        let service = try #require(
            try RepositoryFiles.manifests("ops/kubernetes/staging-mock/service.yaml", kind: "Service").first)
        #expect((service["metadata"] as? [String: Any])?["name"] as? String == "salvo-mock-apns")
        let ports = ((service["spec"] as? [String: Any])?["ports"] as? [[String: Any]] ?? []).compactMap {
            $0["port"] as? Int
        }
        #expect(Set(ports) == [2197, 9101])
        let staging = try #require(
            try RepositoryFiles.yamlDocuments("ops/kubernetes/staging-mock/kustomization.yaml").first as? [String: Any])
        #expect(staging["namespace"] as? String == "salvo-staging")
        #expect((job["metadata"] as? [String: Any])?["namespace"] as? String == "salvo-staging")

        // Production's kustomization never deploys the mock.
        let production = try #require(
            try RepositoryFiles.yamlDocuments("ops/kubernetes/kustomization.yaml").first as? [String: Any])
        let resources = production["resources"] as? [String] ?? []
        #expect(!resources.contains { $0.contains("staging-mock") || $0.contains("loadtest") })
    }

    private static func podSpec(_ manifest: [String: Any]) throws -> [String: Any] {
        try #require(((manifest["spec"] as? [String: Any])?["template"] as? [String: Any])?["spec"] as? [String: Any])
    }
}
