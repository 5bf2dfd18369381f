import Foundation
import SalvoMockAPNs
import SalvoTestSupport
import Testing

/// Run as the image runs: the Dockerfile's `USER 10001` and the Deployment's
/// `runAsNonRoot` with every capability dropped. Until `TCP_NODELAY` was set at the TCP level, the
/// worker and the mock asked for it at socket level, which is `SO_DEBUG` and needs
/// `CAP_NET_ADMIN`: as such a user neither could open a connection, and every test ran as root.
@Suite("salvo worker and mock-apns as an unprivileged user", .serialized)
struct WorkerUnprivilegedTests {
    @Test(
        "uid 10001 without capabilities: the mock serves, the worker delivers, and TCP_NODELAY is set at TCP level on every connection"
    )
    func deliversWithoutPrivileges() async throws {
        try await withWorkerStage(scenarioYAML: "name: e2e-unprivileged\n", partitions: 2, unprivileged: true) {
            stage in
            var fixture = CampaignFixture(seed: 22)
            fixture.addCampaign(
                id: "unprivileged", jobs: 2, tokensPerJob: 200, app: WorkerStage.app, fate: MockTokenFate())
            fixture.addPerUser(id: "unprivileged-user", count: 20, app: WorkerStage.app, fate: MockTokenFate())
            try await stage.enqueue(fixture.campaignLines, to: stage.jobsTopic)
            try await stage.enqueue(fixture.perUserLines, to: stage.priorityTopic)
            let worker = try stage.startWorker(try stage.writeWorkerConfiguration(extra: "device_rate_limit: null"))
            let record = try await stage.waitForDeliveries(of: fixture.expected.delivered, timeout: .seconds(90))
            let missing = fixture.expected.delivered.filter { record.acceptedCount[$0] == nil }
            #expect(missing.isEmpty, "\(missing.count) not delivered; worker stderr: \(worker.stderr.suffix(2_000))")
            // SIGTERM reaches the worker strace runs; strace exits with the worker's status.
            worker.signal(SIGTERM)
            #expect(await worker.waitForExit(timeout: .seconds(30)) == 0)

            for name in ["worker", "mock-apns"] {
                let trace =
                    (try? String(
                        contentsOf: stage.directory.appendingPathComponent("strace-\(name).txt"), encoding: .utf8))
                    ?? ""
                let calls = trace.split(separator: "\n").filter { $0.contains("setsockopt(") }
                // NIO passes the option as an 8-byte integer: `SOL_TCP, TCP_NODELAY, "\1\0…", 8) = 0`.
                let noDelay = calls.filter { $0.contains("SOL_TCP, TCP_NODELAY, \"\\1") && $0.hasSuffix("= 0") }
                #expect(!noDelay.isEmpty, "\(name): no successful TCP_NODELAY in \(calls.prefix(10))")
                #expect(!calls.contains { $0.contains("SO_DEBUG") }, "\(name): SO_DEBUG asked for")
                #expect(
                    !calls.contains { $0.contains("= -1") },
                    "\(name): a socket option refused: \(calls.filter { $0.contains("= -1") }.prefix(5))")
            }
        }
    }
}
