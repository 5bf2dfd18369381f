import Foundation
import SalvoTestSupport
import Testing

/// A worker killed in the middle of a large job, with the worker's default settings on the test
/// broker (`range` assignor): its partition checkpoints — written by time and by count, each job
/// held to `kafka.max_unconfirmed_sends` of unconfirmed sends — let the next worker re-send at
/// most that bound, wherever in the job the kill lands (the first burst included).
@Suite("salvo worker: SIGKILL mid-job at the defaults", .serialized)
struct WorkerCheckpointTests {
    @Test(
        "two 12,000-token jobs at 6,000/s, default burst, pool and checkpoints, SIGKILL at 10, 50 and 80 % of the first, restart: 0 lost, duplicates at most kafka.max_unconfirmed_sends (3,200)",
        arguments: [0.1, 0.5, 0.8])
    func killedMidJobResumesAtTheCheckpoint(fraction: Double) async throws {
        try await withWorkerStage(scenarioYAML: "name: e2e-checkpoint\n", partitions: 1) { stage in
            let kill = try await DuplicateShapes.killDuringJob(
                at: fraction, on: stage, kafka: [], seed: 182 + UInt64(fraction * 10))
            print(
                "SIGKILL at \(Int(fraction * 100)) % (Tansu, range): \(kill.acceptedAtKill) accepted at the kill, \(kill.duplicates) duplicates"
            )
            #expect(kill.duplicates <= DuplicateShapes.defaultUnconfirmedSends, "\(kill.duplicates) duplicates")
        }
    }
}
