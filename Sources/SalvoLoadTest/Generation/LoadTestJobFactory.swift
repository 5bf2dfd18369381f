import SalvoAPNs

/// Turns arrivals into jobs: picks tokens, decides (by exact counting) which jobs are broken and
/// which are produced twice, and writes the JSON.
public struct LoadTestJobFactory: Sendable {
    public let runID: String
    private let scenario: LoadTestScenario
    private let startMilliseconds: Int64
    private let payload: String
    private var tokens: LoadTestTokenSource
    private var sequence = 0
    private var badJobs = 0
    private var goodJobs = 0
    private var duplicates = 0
    private var perUserJobs = 0
    private var broadcasts = 0

    /// `startMilliseconds`: the wall-clock time of offset 0. Job ids are `<runID>-<n>`.
    public init(scenario: LoadTestScenario, runID: String, startMilliseconds: Int64) {
        self.scenario = scenario
        self.runID = runID
        self.startMilliseconds = startMilliseconds
        self.payload = Self.payload(bytes: scenario.payloadBytes)
        self.tokens = LoadTestTokenSource(
            seed: scenario.seed, mockTokens: scenario.mockTokens,
            unregistered: scenario.mix.unregistered, badDeviceToken: scenario.mix.badDeviceToken)
    }

    /// The jobs due at `arrival`: one, or the job and its duplicate.
    public mutating func jobs(for arrival: LoadTestSchedule.Arrival) throws(LoadTestError) -> [LoadTestJob] {
        let id = "\(runID)-\(sequence)"
        sequence += 1
        let scheduled = startMilliseconds + arrival.offsetNanoseconds / 1_000_000
        if Self.isDue(count: badJobs, total: sequence, ratio: scenario.mix.badJobs) {
            let kind = LoadTestBadJobKind.allCases[badJobs % LoadTestBadJobKind.allCases.count]
            badJobs += 1
            return [
                LoadTestJob(
                    id: id, lane: arrival.lane, scheduledAtMilliseconds: scheduled,
                    offsetNanoseconds: arrival.offsetNanoseconds,
                    value: Array(kind.body(id: id, app: scenario.app, payload: payload).utf8), tokens: [],
                    deadLetterReason: kind.rawValue, isDuplicate: false)
            ]
        }
        if arrival.lane == .priority && !scenario.mix.broadcastChannels.isEmpty {
            perUserJobs += 1
            if Self.isDue(count: broadcasts, total: perUserJobs, ratio: scenario.mix.broadcasts) {
                let channel = scenario.mix.broadcastChannels[broadcasts % scenario.mix.broadcastChannels.count]
                broadcasts += 1
                var job = LoadTestJob(
                    id: id, lane: .broadcast, scheduledAtMilliseconds: scheduled,
                    offsetNanoseconds: arrival.offsetNanoseconds,
                    value: Self.broadcastBody(
                        id: id, app: scenario.app, channel: channel, sequence: broadcasts, at: scheduled),
                    tokens: [], deadLetterReason: nil, isDuplicate: false)
                job.broadcastChannel = channel
                return [job]
            }
        }
        var choices: [LoadTestTokenSource.Choice] = []
        choices.reserveCapacity(arrival.tokenCount)
        for _ in 0..<arrival.tokenCount { choices.append(try tokens.next()) }
        let job = LoadTestJob(
            id: id, lane: arrival.lane, scheduledAtMilliseconds: scheduled,
            offsetNanoseconds: arrival.offsetNanoseconds,
            value: body(id: id, lane: arrival.lane, campaign: arrival.campaign, tokens: choices), tokens: choices,
            deadLetterReason: nil, isDuplicate: false, campaign: arrival.campaign)
        goodJobs += 1
        guard Self.isDue(count: duplicates, total: goodJobs, ratio: scenario.mix.duplicateJobs) else { return [job] }
        duplicates += 1
        var duplicate = job
        duplicate.isDuplicate = true
        return [job, duplicate]
    }

    /// Exact counting: the `total`-th item is picked when that keeps `count` at ⌊total·ratio⌋.
    static func isDue(count: Int, total: Int, ratio: Double) -> Bool {
        count < Int((Double(total) * ratio).rounded(.down))
    }

    private func body(
        id: String, lane: LoadTestLane, campaign: String?, tokens: [LoadTestTokenSource.Choice]
    ) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(payload.utf8.count + 128 + tokens.count * 67)
        bytes += #"{"id":"\#(id)","app":"\#(scenario.app)","#.utf8
        switch lane {
        case .priority:
            bytes += #""token":""#.utf8
            bytes += tokens[0].token.hexBytes
            bytes += #"","#.utf8
        case .broadcast:
            break  // built by broadcastBody: a broadcast has a channel, not tokens
        case .campaign:
            bytes +=
                #""campaign_id":"\#(LoadTestScenario.Campaign.campaignID(name: campaign, runID: runID))","priority":5,"tokens":["#
                .utf8
            for (index, choice) in tokens.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                bytes.append(UInt8(ascii: "\""))
                bytes += choice.token.hexBytes
                bytes.append(UInt8(ascii: "\""))
            }
            bytes += "],".utf8
        }
        bytes += #""payload":"#.utf8
        bytes += payload.utf8
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    /// A Live Activity update to `channel` (docs/jobs.md "Broadcast jobs"): priority 5, because a
    /// priority-10 update counts against the devices' budget and the worker warns about it.
    static func broadcastBody(
        id: String, app: String, channel: String, sequence: Int, at milliseconds: Int64
    ) -> [UInt8] {
        Array(
            #"{"id":"\#(id)","app":"\#(app)","channel_id":"\#(channel)","priority":5,"payload":{"aps":{"event":"update","#
                .utf8)
            + Array(#""timestamp":\#(milliseconds / 1000),"content-state":{"salvo_loadtest":\#(sequence)}}}}"#.utf8)
    }

    /// A JSON object of exactly `bytes` bytes (at least its fixed part), padded in a `pad` member.
    static func payload(bytes: Int) -> String {
        let head = #"{"aps":{"alert":"salvo load test"},"pad":""#
        let tail = #""}"#
        let padding = max(0, bytes - head.utf8.count - tail.utf8.count)
        return head + String(repeating: "x", count: padding) + tail
    }
}
