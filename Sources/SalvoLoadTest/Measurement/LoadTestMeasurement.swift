import Histogram
import SalvoAPNs
import SalvoMockAPNs
import Synchronization

/// Joins what was produced with what the mock, the feedback topic and the dead-letter topic saw.
///
/// Every notification of a good job is registered under its deterministic `apns-id` (job id +
/// token, `APNsID.deterministic`) with its scheduled time before the job is produced, so a mock
/// record — from the record file or an in-process listener — maps straight back to its job, and
/// its latency is `receive time − scheduled time`. Fed from many threads (delivery reports, the
/// mock's event loops, consumer tasks), so the state sits behind one lock; each call is a
/// dictionary lookup and a histogram increment.
public final class LoadTestMeasurement: Sendable {
    struct Entry {
        var scheduledAtMilliseconds: Int64
        var lane: LoadTestLane
        var accepted: Bool
        var campaign: String?
    }

    struct Bucket {
        var produced = 0
        var delivered = 0
        var latency = LoadTestLatencySummary.makeHistogram(digits: .two)
    }

    struct State {
        var entries: [APNsID: Entry] = [:]
        var expectedFeedback: [String: String] = [:]
        var seenFeedback: Set<String> = []
        var expectations = LoadTestExpectations()
        var observations = LoadTestObservations()
        var overall = LoadTestLatencySummary.makeHistogram()
        var lanes: [LoadTestLane: Histogram<UInt64>] = [:]
        var scheduleLag = LoadTestLatencySummary.makeHistogram()
        var buckets: [Bucket] = []
        var consumerLag: [LoadTestReport.LagPoint] = []
        /// Named campaigns (LoadTestMeasurement+Campaigns.swift).
        var campaigns: [String: CampaignTally] = [:]
        var feedbackCampaign: [String: String] = [:]
        var cancelled: Set<String> = []
    }

    /// The run's id (the prefix of every job id).
    public let runID: String
    private let start: Atomic<Int64>
    /// Width of one timeline bucket.
    public let bucketSeconds: Int
    /// Timelines stop growing here (a record timestamp far in the future must not allocate).
    static let maximumBuckets = 20_000
    let state = Mutex(State())

    /// `startMilliseconds` may be moved later with ``begin(atMilliseconds:)``, when the run
    /// really starts (the measurement exists earlier so a mock can be wired to it first).
    public init(runID: String, startMilliseconds: Int64, bucketSeconds: Int = 1) {
        self.runID = runID
        self.start = Atomic(startMilliseconds)
        self.bucketSeconds = max(1, bucketSeconds)
    }

    /// Wall-clock time of the schedule's offset 0, milliseconds since 1970.
    public var startMilliseconds: Int64 { start.load(ordering: .relaxed) }

    /// Sets the schedule's offset 0; call before the first job.
    public func begin(atMilliseconds milliseconds: Int64) {
        start.store(milliseconds, ordering: .relaxed)
    }

    /// A sample of the worker group's consumer lag.
    public func recordConsumerLag(_ lag: Double, atMilliseconds milliseconds: Int64) {
        let second = Int(max(0, milliseconds - startMilliseconds) / 1000)
        state.withLock { $0.consumerLag.append(LoadTestReport.LagPoint(second: second, lag: lag)) }
    }

    /// The consumer-lag samples so far.
    public func consumerLag() -> [LoadTestReport.LagPoint] {
        state.withLock { $0.consumerLag }
    }

    /// Records what `job` must lead to. Call before producing it, so no answer can overtake it.
    public func register(_ job: LoadTestJob) {
        let ids = job.isDuplicate ? [] : job.tokens.map { APNsID.deterministic(jobID: job.id, token: $0.token) }
        // A broadcast's apns-request-id is derived from its job id and channel, as the worker does.
        let requestID = job.broadcastChannel.flatMap(APNsChannelID.init).map {
            APNsBroadcastRequest.deterministicRequestID(jobID: job.id, channelID: $0)
        }
        state.withLock { state in
            state.expectations.jobsProduced += 1
            if job.isDuplicate {
                state.expectations.duplicateJobs += 1
                state.expectations.duplicateNotifications += job.tokens.count
                return
            }
            if let reason = job.deadLetterReason {
                state.expectations.badJobs += 1
                state.expectations.deadLetters[reason, default: 0] += 1
                return
            }
            if let requestID {
                state.expectations.notifications += 1
                state.entries[requestID] = Entry(
                    scheduledAtMilliseconds: job.scheduledAtMilliseconds, lane: job.lane, accepted: false)
                state.expectations.delivered[job.lane.rawValue, default: 0] += 1
                return
            }
            state.expectations.notifications += job.tokens.count
            if let name = job.campaign {
                state.campaigns[name, default: CampaignTally()].notifications += job.tokens.count
            }
            for (choice, id) in zip(job.tokens, ids) {
                switch choice.fate {
                case .valid:
                    state.entries[id] = Entry(
                        scheduledAtMilliseconds: job.scheduledAtMilliseconds, lane: job.lane, accepted: false,
                        campaign: job.campaign)
                    state.expectations.delivered[job.lane.rawValue, default: 0] += 1
                    if let name = job.campaign {
                        state.campaigns[name, default: CampaignTally()].expectedDelivered += 1
                    }
                case .unregistered, .badDeviceToken:
                    let reason = Self.reason(choice.fate)
                    state.expectedFeedback[choice.token.hex] = reason
                    state.expectations.feedback[reason, default: 0] += 1
                    if let name = job.campaign {
                        state.feedbackCampaign[choice.token.hex] = name
                        state.campaigns[name, default: CampaignTally()].expectedFeedback[reason, default: 0] += 1
                    }
                }
            }
        }
    }

    /// The job went to the producer `lateByNanoseconds` after it was due.
    public func produced(_ job: LoadTestJob, lateByNanoseconds: Int64) {
        let offsetMilliseconds = job.offsetNanoseconds / 1_000_000
        state.withLock { state in
            state.scheduleLag.record(UInt64(max(0, lateByNanoseconds / 1_000_000)))
            update(&state, atOffsetMilliseconds: offsetMilliseconds) {
                $0.produced += job.lane == .broadcast ? 1 : job.tokens.count
            }
        }
    }

    /// Kafka's answer for one produced job.
    public func acknowledged(_ success: Bool) {
        state.withLock { state in
            if success { state.observations.produceAcknowledged += 1 } else { state.observations.produceFailures += 1 }
        }
    }

    /// The mock accepted the notification `apnsID` at `receivedAtMilliseconds` (wall clock).
    public func observeRecord(apnsID: APNsID, receivedAtMilliseconds: Int64) {
        state.withLock { state in
            guard var entry = state.entries[apnsID] else {
                state.observations.unknownDeliveries += 1
                return
            }
            guard !entry.accepted else {
                state.observations.duplicateDeliveries += 1
                return
            }
            entry.accepted = true
            state.entries[apnsID] = entry
            var latency = receivedAtMilliseconds - entry.scheduledAtMilliseconds
            if latency < 0 {
                state.observations.negativeLatencies += 1
                latency = 0
            }
            let value = UInt64(latency)
            state.observations.delivered[entry.lane.rawValue, default: 0] += 1
            if let name = entry.campaign {
                state.campaigns[name, default: CampaignTally()].deliveredAt.append(receivedAtMilliseconds)
            }
            let offset = receivedAtMilliseconds - startMilliseconds
            state.observations.lastDeliveryOffsetMilliseconds = max(
                state.observations.lastDeliveryOffsetMilliseconds ?? offset, offset)
            state.overall.record(value)
            state.lanes[entry.lane, default: LoadTestLatencySummary.makeHistogram()].record(value)
            update(&state, atOffsetMilliseconds: receivedAtMilliseconds - startMilliseconds) { bucket in
                bucket.delivered += 1
                bucket.latency.record(value)
            }
        }
    }

    /// A feedback event of this run (`job_id` starts with the run id).
    public func observeFeedback(token: String, reason: String) {
        let token = token.lowercased()
        state.withLock { state in
            guard state.expectedFeedback[token] == reason else {
                state.observations.unexpectedFeedback += 1
                return
            }
            if state.seenFeedback.insert(token).inserted {
                state.observations.feedback[reason, default: 0] += 1
                if let name = state.feedbackCampaign[token] {
                    state.campaigns[name, default: CampaignTally()].seenFeedback[reason, default: 0] += 1
                }
            } else {
                state.observations.duplicateFeedback += 1
            }
        }
    }

    /// A dead letter of this run, with its `salvo-reason` header.
    public func observeDeadLetter(reason: String) {
        state.withLock { $0.observations.deadLetters[reason, default: 0] += 1 }
    }

    /// The counts and latencies so far.
    public func snapshot() -> LoadTestSnapshot {
        state.withLock { state in
            let (expectations, observations) = Self.excludingCancelled(state)
            return LoadTestSnapshot(
                expectations: expectations, observations: observations,
                latency: LoadTestLatencySummary(state.overall),
                lanes: Dictionary(
                    uniqueKeysWithValues: state.lanes.map { ($0.key.rawValue, LoadTestLatencySummary($0.value)) }),
                scheduleLag: LoadTestLatencySummary(state.scheduleLag))
        }
    }

    /// Per bucket: notifications produced and delivered per second, and delivery latency.
    public func timeline() -> [LoadTestReport.TimelinePoint] {
        state.withLock { state in
            state.buckets.enumerated().map { index, bucket in
                let seconds = Double(bucketSeconds)
                let empty = bucket.latency.totalCount == 0
                return LoadTestReport.TimelinePoint(
                    second: index * bucketSeconds,
                    producedPerSecond: Double(bucket.produced) / seconds,
                    deliveredPerSecond: Double(bucket.delivered) / seconds,
                    p50: empty ? nil : bucket.latency.valueAtPercentile(50),
                    p99: empty ? nil : bucket.latency.valueAtPercentile(99))
            }
        }
    }

    /// The overall latency at the percentiles of ``LoadTestReport/distributionPercentiles``.
    public func distribution() -> [LoadTestReport.DistributionPoint] {
        state.withLock { state in
            guard state.overall.totalCount > 0 else { return [] }
            return LoadTestReport.distributionPercentiles.map {
                LoadTestReport.DistributionPoint(percentile: $0, milliseconds: state.overall.valueAtPercentile($0))
            }
        }
    }

    /// Tokens of expected feedback not seen yet (for the report's missing list).
    func missingFeedback(limit: Int) -> [String] {
        state.withLock { state in
            let missing = state.expectedFeedback.keys.filter { token in
                !state.seenFeedback.contains(token)
                    && !(state.feedbackCampaign[token].map { state.cancelled.contains($0) } ?? false)
            }
            return Array(missing.sorted().prefix(limit))
        }
    }

    /// APNs's reason text for a mock fate.
    static func reason(_ fate: MockTokenFate.Outcome) -> String {
        switch fate {
        case .unregistered: return "Unregistered"
        case .badDeviceToken: return "BadDeviceToken"
        case .valid: return "valid"
        }
    }

    private func update(_ state: inout State, atOffsetMilliseconds offset: Int64, _ change: (inout Bucket) -> Void) {
        let index = Int(max(0, offset) / 1000) / bucketSeconds
        guard index < Self.maximumBuckets else { return }
        if state.buckets.count <= index {
            state.buckets.append(contentsOf: repeatElement(Bucket(), count: index + 1 - state.buckets.count))
        }
        change(&state.buckets[index])
    }
}
