import Foundation
import SalvoTestSupport
import Testing

/// Broadcasts end to end: broadcast jobs produced to the job topics reach the mock APNs through the
/// real worker binary (TLS, provider token, the real broker); the mock's record names each channel
/// and the SHA-256 of the payload's bytes as they stood in the job; a job for a deleted channel is
/// dead-lettered with `ChannelNotRegistered` and its channel event, keyed by the channel id, is on
/// the feedback topic; every offset commits.
@Suite("The worker sends broadcast jobs (salvo worker + salvo mock-apns --broadcast-listen)", .serialized)
struct WorkerBroadcastTests {
    /// A broadcast job's NDJSON line; `payload` is spliced in as written, spaces and all.
    static func job(_ id: String, channel: String, payload: String, expiration: Int = 0, priority: Int = 5) -> String {
        #"{"id":"\#(id)","app":"\#(WorkerStage.app)","channel_id":"\#(channel)","priority":\#(priority),"expiration":\#(expiration),"payload":\#(payload)}"#
    }

    /// `salvo channels <verb>` for the stage's app on the mock's channel-management listener.
    static func channels(
        _ verb: String, _ arguments: [String], stage: WorkerStage, config: URL, port: String
    ) async throws -> [String: String] {
        let result = try await CommandRunner.salvo(
            ["channels", verb, "--worker-config", config.path, "--app", WorkerStage.app, "--port", port] + arguments)
        guard result.status == 0 else {
            throw TestFailure("channels \(verb) failed: \(result.stdoutText) \(result.stderr)")
        }
        return ChannelsCommandTests.fields(result)
    }

    static func sha256(_ text: String, in directory: URL) async throws -> String {
        let file = directory.appendingPathComponent("payload-\(UUID().uuidString).json")
        try Data(text.utf8).write(to: file)
        let result = try await ExternalProcess.run(
            URL(fileURLWithPath: "/usr/bin/sha256sum"), [file.path], timeout: .seconds(10))
        return String(result.stdoutText.prefix(64))
    }

    /// The mock's record lines, as objects (``MockRecord`` reads device pushes only).
    static func recordLines(_ stage: WorkerStage) throws -> [[String: Any]] {
        guard let data = FileManager.default.contents(atPath: stage.recordURL.path) else { return [] }
        let complete = data[..<(data.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? data.startIndex)]
        return try complete.split(separator: UInt8(ascii: "\n")).compactMap { line in
            let object = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any]
            return object
        }
    }

    @Test(
        "broadcasts on both job topics reach the mock byte for byte; a deleted channel's job is dead-lettered with its feedback event; offsets commit"
    )
    func broadcastEndToEnd() async throws {
        try await withWorkerStage(
            scenarioYAML: "name: e2e-broadcast\n", partitions: 2, mockArguments: ["--broadcast-listen", "127.0.0.1:0"]
        ) { stage in
            let port = try ChannelsCommandTests.port(
                try await stage.mock.waitForOutput(containing: "channel management on"))
            let config = try stage.writeWorkerConfiguration()
            let stored = try #require(
                try await Self.channels(
                    "create", ["--storage-policy", "most-recent"], stage: stage, config: config, port: port)[
                        "apns-channel-id"])
            let unstored = try #require(
                try await Self.channels("create", [], stage: stage, config: config, port: port)["apns-channel-id"])
            let gone = try #require(
                try await Self.channels("create", [], stage: stage, config: config, port: port)["apns-channel-id"])
            #expect(
                try await Self.channels("delete", ["--channel-id", gone], stage: stage, config: config, port: port)[
                    "status"] == "204")

            // Written with spaces a re-encoding would drop: the record's digest proves the bytes.
            let score =
                #"{"aps": {"timestamp": 1784487600, "event": "update", "content-state": {"home": 2, "away": 1}}}"#
            let noTimestamp = #"{ "aps":{"event":"update","content-state":{"minute":67} } }"#
            let token = String(repeating: "ab", count: 32)
            try await stage.enqueue(
                [
                    Self.job("score", channel: stored, payload: score, expiration: 1_900_000_000),
                    Self.job("to-deleted", channel: gone, payload: score),
                    // A nonzero expiration on a no-storage channel: APNs (the mock) answers BadExpirationDate.
                    Self.job("storage-rule", channel: unstored, payload: score, expiration: 1_900_000_000),
                    #"{"id":"device-push","app":"\#(WorkerStage.app)","token":"\#(token)","payload":{"aps":{"alert":"hi"}}}"#,
                ], to: stage.jobsTopic)
            try await stage.enqueue(
                [Self.job("minute", channel: unstored, payload: noTimestamp, priority: 10)], to: stage.priorityTopic)
            let worker = try stage.startWorker(config)

            var lines: [[String: Any]] = []
            #expect(
                try await waitUntil(timeout: .seconds(90)) {
                    lines = try Self.recordLines(stage)
                    return lines.count >= 3
                }, "both broadcasts and the device push reach the mock")
            var digests: [String: [String]] = [:]
            for line in lines {
                guard let channel = line["channel_id"] as? String else { continue }
                digests[channel, default: []].append(line["payload_sha256"] as? String ?? "")
            }
            #expect(
                digests[stored] == [try await Self.sha256(score, in: stage.directory)],
                "the record names the stored channel and the payload's SHA-256")
            #expect(
                digests[unstored] == [try await Self.sha256(noTimestamp, in: stage.directory)],
                "the record names the other channel and its payload's SHA-256")
            #expect(digests[gone] == nil)
            #expect(lines.filter { $0["token"] as? String == token }.count == 1, "device jobs still go out")

            var letters: [(key: String, headers: String)] = []
            #expect(
                try await waitUntil(timeout: .seconds(60)) {
                    let result = try await stage.cluster.read(stage.deadLetterTopic, format: "%k\t%h\n")
                    letters = result.stdoutText.split(separator: "\n").map { line in
                        let parts = line.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
                        return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
                    }
                    return letters.count >= 2
                })
            let deleted = letters.filter { $0.headers.contains("salvo-job-id=to-deleted") }
            #expect(
                deleted.count == 1 && deleted.first?.headers.contains("salvo-apns-reason=ChannelNotRegistered") == true,
                "\(letters)")
            let rule = letters.filter { $0.headers.contains("salvo-job-id=storage-rule") }
            #expect(
                rule.count == 1 && rule.first?.headers.contains("salvo-apns-reason=BadExpirationDate") == true,
                "\(letters)")
            #expect(letters.count == 2, "only those two are dead-lettered: \(letters)")

            var events: [(key: String, value: String)] = []
            #expect(
                try await waitUntil(timeout: .seconds(30)) {
                    events = try await stage.messages(of: stage.feedbackTopic)
                    return !events.isEmpty
                })
            #expect(
                events.count == 1 && events.first?.key == gone,
                "one channel event, keyed by the deleted channel: \(events)")
            let event = try events.first.flatMap {
                try JSONSerialization.jsonObject(with: Data($0.value.utf8)) as? [String: Any]
            }
            #expect(event?["channel_id"] as? String == gone)
            #expect(event?["apns_reason"] as? String == "ChannelNotRegistered")
            #expect(event?["apns_status"] as? Int == 400)
            #expect(event?["job_id"] as? String == "to-deleted")

            #expect(
                try await waitUntil(timeout: .seconds(60)) {
                    let campaign = try await stage.uncommittedPartitions(of: stage.jobsTopic, group: stage.groupID)
                    let priority = try await stage.uncommittedPartitions(
                        of: stage.priorityTopic, group: stage.groupID + ".priority")
                    return campaign.isEmpty && priority.isEmpty
                }, "offsets reach the high watermarks")

            let scrape = PrometheusScrape(try await stage.metrics(of: worker))
            #expect(scrape.sum("salvo_broadcasts_total", ["outcome": "delivered"]) == 2)
            #expect(scrape.sum("salvo_broadcasts_total", ["outcome": "dead_lettered"]) == 2)
            #expect(scrape.sum("salvo_live_activity_warnings_total", ["kind": "missing_timestamp"]) == 1)
            #expect(scrape.sum("salvo_live_activity_warnings_total", ["kind": "budgeted_priority"]) == 1)
            worker.signal(SIGTERM)
            #expect(await worker.waitForExit(timeout: .seconds(40)) == 0)
        }
    }
}
