import Foundation
import SalvoTestSupport
import Testing

/// Hostile input through Kafka, with the real `salvo worker` and
/// `salvo mock-apns` on the real broker: mutated jobs (seeded, so a failure reproduces) on both job
/// topics never crash the worker, each ends delivered or dead-lettered, and both consumer groups
/// commit up to the high watermarks.
@Suite("salvo worker: hostile jobs", .serialized)
struct HostileJobsTests {
    /// Message delimiter and key delimiter for `kcat -P`: bytes the mutator never leaves in a job.
    static let delimiter = "\\x1e"
    static let keyDelimiter = "\\x1f"

    @Test(
        "330 mutated jobs (flips, truncations, insertions, nesting, huge numbers, duplicates) on both topics: no crash, each delivered or dead-lettered, offsets at the high watermarks"
    )
    func mutatedJobs() async throws {
        try await withWorkerStage(scenarioYAML: "name: e2e-hostile\nseed: 20\n") { stage in
            var mutator = JobMutator(seed: 20)
            let batches = [
                (
                    topic: stage.jobsTopic,
                    messages: mutator.messages(count: 180, app: WorkerStage.app, perUser: false, idPrefix: "hostile-c")
                ),
                (
                    topic: stage.priorityTopic,
                    messages: mutator.messages(count: 150, app: WorkerStage.app, perUser: true, idPrefix: "hostile-u")
                ),
            ]
            for batch in batches { try await Self.produce(batch.messages, to: batch.topic, stage: stage) }

            let worker = try stage.startWorker(try stage.writeWorkerConfiguration())
            let committed = try await waitUntil(timeout: .seconds(240)) {
                guard worker.isRunning else { return true }
                let campaign = try await stage.uncommittedPartitions(of: stage.jobsTopic, group: stage.groupID)
                let priority = try await stage.uncommittedPartitions(
                    of: stage.priorityTopic, group: "\(stage.groupID).priority")
                return campaign.isEmpty && priority.isEmpty
            }
            #expect(worker.isRunning, "the worker exited:\n\(worker.stderr.suffix(4_000))")
            #expect(committed, "offsets below the high watermarks after 240 s")
            #expect(try await stage.uncommittedPartitions(of: stage.jobsTopic, group: stage.groupID) == [])
            #expect(
                try await stage.uncommittedPartitions(of: stage.priorityTopic, group: "\(stage.groupID).priority") == []
            )

            // Every message: a dead letter naming its coordinates, or an acceptance of one of its tokens.
            let deadLettered = try await Self.deadLetterSources(stage)
            try await Task.sleep(for: .seconds(2))  // the mock flushes its record every second
            let record = try stage.record()
            var unaccounted: [String] = []
            var counts = (delivered: 0, deadLettered: 0)
            for batch in batches {
                let coordinates = try await Self.coordinates(of: batch.topic, stage: stage)
                #expect(
                    coordinates.count == batch.messages.count, "\(batch.topic): \(coordinates.count) messages read back"
                )
                for (index, message) in batch.messages.enumerated() {
                    let source = coordinates[index] ?? "?"
                    if deadLettered.contains(source) {
                        counts.deadLettered += 1
                    } else if Self.tokens(of: message).contains(where: { record.acceptedCount[$0] != nil }) {
                        counts.delivered += 1
                    } else {
                        unaccounted.append(
                            "\(source) \(message.mutation): \(String(decoding: message.bytes.prefix(160), as: UTF8.self))"
                        )
                    }
                }
            }
            #expect(
                unaccounted.isEmpty,
                "\(unaccounted.count) messages neither delivered nor dead-lettered:\n\(unaccounted.prefix(10).joined(separator: "\n"))"
            )
            // Both outcomes occur: the mutations leave some jobs valid and break others.
            #expect(counts.delivered > 20 && counts.deadLettered > 100, "\(counts)")

            worker.signal(SIGTERM)
            #expect(await worker.waitForExit(timeout: .seconds(40)) == 0, "\(worker.stderr.suffix(2_000))")
        }
    }

    /// The tokens a message may have been delivered under: its job's, and any 64-hex run left in
    /// the mutated bytes (a flipped character is another valid token).
    static func tokens(of message: JobMutator.Message) -> Set<String> {
        let text = String(decoding: message.bytes, as: UTF8.self).lowercased()
        let runs = text.split { !$0.isHexDigit }.filter { $0.count == 64 }.map(String.init)
        return Set(message.tokens + runs)
    }

    /// Produces `messages` in order with their index as the key, bytes unchanged.
    static func produce(_ messages: [JobMutator.Message], to topic: String, stage: WorkerStage) async throws {
        var file: [UInt8] = []
        for (index, message) in messages.enumerated() {
            file += Array("\(index)\u{1f}".utf8) + message.bytes.map { $0 == 0x1e ? UInt8(ascii: " ") : $0 } + [0x1e]
        }
        let url = stage.directory.appendingPathComponent("hostile-\(UUID().uuidString).bin")
        try Data(file).write(to: url)
        let produced = try await CommandRunner.kcat([
            "-b", stage.cluster.brokers, "-P", "-t", topic, "-D", delimiter, "-K", keyDelimiter, "-l", url.path,
        ])
        guard produced.status == 0 else { throw TestFailure("kcat could not produce to \(topic): \(produced.stderr)") }
    }

    /// Message index (its key) → `topic/partition/offset`.
    static func coordinates(of topic: String, stage: WorkerStage) async throws -> [Int: String] {
        let result = try await stage.cluster.read(topic, format: "%k\t%p\t%o\n")
        guard result.status == 0 else { throw TestFailure("kcat could not read \(topic): \(result.stderr)") }
        var coordinates: [Int: String] = [:]
        for line in result.stdoutText.split(separator: "\n") {
            let parts = line.split(separator: "\t")
            guard parts.count == 3, let index = Int(parts[0]) else { continue }
            coordinates[index] = "\(topic)/\(parts[1])/\(parts[2])"
        }
        return coordinates
    }

    /// `topic/partition/offset` of the source of every dead letter (job or notification).
    static func deadLetterSources(_ stage: WorkerStage) async throws -> Set<String> {
        let result = try await stage.cluster.read(stage.deadLetterTopic, format: "%h<<end>>\n")
        guard result.status == 0 else { throw TestFailure("kcat could not read the dead letters: \(result.stderr)") }
        var sources: Set<String> = []
        for headers in result.stdoutText.components(separatedBy: "<<end>>\n") {
            guard let topic = headers.firstMatch(of: /salvo-source-topic=([^,]+)/),
                let partition = headers.firstMatch(of: /salvo-source-partition=(\d+)/),
                let offset = headers.firstMatch(of: /salvo-source-offset=(\d+)/)
            else { continue }
            sources.insert("\(topic.1)/\(partition.1)/\(offset.1)")
        }
        return sources
    }
}
