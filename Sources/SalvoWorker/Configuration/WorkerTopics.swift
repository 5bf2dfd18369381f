/// The Kafka topics a worker reads and writes (docs/design.md "Topics"). Names are configurable so
/// several deployments can share a cluster.
public struct WorkerTopics: Sendable, Hashable {
    /// Campaign lane input. Default: `salvo.jobs`.
    public var jobs: String
    /// Per-user lane input. Default: `salvo.jobs.priority`.
    public var priority: String
    /// Retries that could not be held in memory, with their due time; the worker consumes it too.
    /// Default: `salvo.retry`.
    public var retry: String
    /// Invalid-token events, keyed by device token. Default: `salvo.feedback`.
    public var feedback: String
    /// Jobs and notifications that can never be delivered. Default: `salvo.dlq`.
    public var deadLetter: String
    /// One record per notification outcome, for audit; nil (the default) disables it.
    public var outcomes: String?
    /// Campaign control commands (cancel, pause, resume), compacted, keyed by campaign id; every
    /// worker reads it whole. Default: `salvo.control` (docs/campaigns.md).
    public var control: String
    /// Per-campaign progress counters of every worker, compacted. Default: `salvo.campaigns`.
    public var campaigns: String
    /// Job checkpoints (how far a partly sent job got), compacted, one key per consumer group and
    /// partition; every worker reads it whole (``JobCheckpoint``). Default: `salvo.progress`.
    public var progress: String
    /// Whether the worker follows `control` (and publishes to `campaigns`); `topics.control: null`
    /// turns campaign control off, and the worker then starts without those topics. Default: true.
    public var followsControl = true
    /// Whether the worker keeps job checkpoints in `progress`; `topics.progress: null` turns them
    /// off (a crash then re-sends partly sent jobs whole). Default: true.
    public var keepsCheckpoints = true

    public init(
        jobs: String = "salvo.jobs",
        priority: String = "salvo.jobs.priority",
        retry: String = "salvo.retry",
        feedback: String = "salvo.feedback",
        deadLetter: String = "salvo.dlq",
        outcomes: String? = nil,
        control: String = "salvo.control",
        campaigns: String = "salvo.campaigns",
        progress: String = "salvo.progress"
    ) {
        self.jobs = jobs
        self.priority = priority
        self.retry = retry
        self.feedback = feedback
        self.deadLetter = deadLetter
        self.outcomes = outcomes
        self.control = control
        self.campaigns = campaigns
        self.progress = progress
    }

    /// Every name set, outputs included; not the campaign topics, which deployments share
    /// (`salvo demo` deletes `all` when it ends).
    public var all: [String] { [jobs, priority, retry, feedback, deadLetter] + (outcomes.map { [$0] } ?? []) }

    /// The campaign control and progress topics (both compacted).
    public var campaignTopics: [String] { [control, campaigns] }

    /// The compacted topics the worker keeps state in: campaign control and progress, job
    /// checkpoints.
    public var compactedTopics: [String] { campaignTopics + [progress] }

    /// The compacted topics of the features switched on.
    var enabledStateTopics: [String] {
        (followsControl ? campaignTopics : []) + (keepsCheckpoints ? [progress] : [])
    }

    /// Throws when a name is empty or not a legal Kafka topic name, or when two roles share a topic
    /// (a worker reading its own feedback as jobs would dead-letter every event).
    public func validate() throws(SalvoWorkerError) {
        let names = all + enabledStateTopics
        for name in names {
            guard !name.isEmpty, name.count <= 249, name != ".", name != "..",
                name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "_" || $0 == "-") })
            else {
                throw .invalidConfiguration(
                    "topic name \"\(name)\" is not a legal Kafka topic name ([A-Za-z0-9._-], 1…249 characters)")
            }
        }
        guard Set(names).count == names.count else {
            throw .invalidConfiguration("topics must be distinct, got \(names.joined(separator: ", "))")
        }
    }
}
