/// The allowed range of every numeric key of the worker's configuration, in one table
/// (docs/configuration.md lists them).
///
/// Each range keeps the worker safe whatever is written inside it: no arithmetic overflows, no
/// memory bound is lifted, no timer is set for years. Each also leaves a demanding deployment
/// room, well past anything Apple or Kafka would let it use. The YAML mirror refuses a value
/// outside its key's range while decoding, so the message names the key path and the value as the
/// file wrote them; each part's `validate()` checks the same ranges for configurations built in
/// code and names the same keys.
enum ConfigurationBounds {
    // MARK: kafka

    /// How often done watermarks are committed: what a crash re-sends is about this much sending.
    static let commitInterval: ClosedRange<Duration> = .milliseconds(10) ... .seconds(60)
    /// How often job checkpoints are written: what a crash mid-job re-sends beyond the in-flight
    /// window is about this much sending.
    static let checkpointInterval: ClosedRange<Duration> = .milliseconds(10) ... .seconds(60)
    /// How long a revoke waits for its partitions' in-flight work; 0 commits at once. Beyond a
    /// minute the group's rebalance would stall every member.
    static let revokeWait: ClosedRange<Duration> = .zero ... .seconds(60)
    /// Notifications of one job between count-triggered checkpoints.
    static let checkpointNotifications: ClosedRange<Int> = 10...1_000_000
    /// A job's sends not yet in an acknowledged checkpoint: at least one notification may go.
    static let maximumUnconfirmedSends: ClosedRange<Int> = 1...100_000_000
    /// Completed-but-uncommitted notifications while commits fail, before intake stops.
    static let maximumUncommitted: ClosedRange<Int> = 100...10_000_000

    // MARK: apps

    /// Apps one worker sends for. With the pool bounds, the dispatch window (apps × environments
    /// × connections × streams) stays below 2^28, so summing it can never overflow.
    static let apps: ClosedRange<Int> = 1...1_000
    /// What a file or a configuration with more apps is told.
    static func tooManyApps(_ count: Int) -> String {
        "\(count) apps; the number of apps must be within \(apps.configurationText)"
    }
    /// Connections per (credential, environment).
    static let connections: ClosedRange<Int> = 1...64
    /// Streams per connection: APNs advertises at most 1,000, and the server's lower value wins.
    static let maximumStreams: ClosedRange<Int> = 1...1_000
    static let connectTimeout: ClosedRange<Duration> = .milliseconds(100) ... .seconds(600)
    static let requestTimeout: ClosedRange<Duration> = .milliseconds(100) ... .seconds(3_600)
    /// Below a second the PINGs alone would be a load on the gateway.
    static let keepaliveInterval: ClosedRange<Duration> = .seconds(1) ... .seconds(3_600)
    static let keepaliveTimeout: ClosedRange<Duration> = .milliseconds(100) ... .seconds(600)
    /// A custom endpoint's TCP port.
    static let port: ClosedRange<Int> = 1...65_535

    // MARK: Rate limits (an app's, and the per-device one)

    /// Slower than one send per 1,000 s, a full burst expressed as time (emission interval ×
    /// burst) would no longer fit the limiter's 64-bit nanoseconds.
    static let perSecond: ClosedRange<Double> = 0.001...10_000_000
    static let burst: ClosedRange<Int> = 1...1_000_000

    // MARK: lanes

    static let laneWeight: ClosedRange<Int> = 1...1_000
    /// Notifications queued per lane: the memory bound of intake.
    static let capacityPerLane: ClosedRange<Int> = 1...10_000_000
    /// 0 turns the adaptive flight limit off.
    static let queueDelayTarget: ClosedRange<Duration> = .zero ... .seconds(1)

    // MARK: retry

    static let backoffInitial: ClosedRange<Duration> = .milliseconds(1) ... .seconds(3_600)
    static let backoffMaximum: ClosedRange<Duration> = .milliseconds(1) ... .seconds(86_400)
    static let backoffMultiplier: ClosedRange<Double> = 1...10
    /// Wider windows would hold every retry back by as much.
    static let batchWindow: ClosedRange<Duration> = .milliseconds(1) ... .seconds(60)
    /// Notifications held in memory for a retry: the memory bound of the retry scheduler.
    static let maximumHeld: ClosedRange<Int> = 0...1_000_000
    static let maximumHeldDelay: ClosedRange<Duration> = .zero ... .seconds(86_400)

    // MARK: outcomes

    /// A retry record's `attempt` is read up to the same number.
    static let maximumAttempts: ClosedRange<Int> = 1...JobFieldReader.maximumRetryAttempt
    static let maximumReplays: ClosedRange<Int> = 0...100

    // MARK: health (of each APNs pool)

    /// Share of failed answers that makes a pool unhealthy: above 0 (0 would trip on nothing).
    static let failureShare: ClosedRange<Double> = 0.01...1
    static let minimumSamples: ClosedRange<Int> = 1...1_000_000
    static let sampleWindow: ClosedRange<Duration> = .milliseconds(100) ... .seconds(3_600)
    static let probeRequests: ClosedRange<Int> = 1...1_000
    /// Both probe delays; the initial one must not exceed the maximum.
    static let probeDelay: ClosedRange<Duration> = .milliseconds(10) ... .seconds(3_600)

    // MARK: limits

    static let maximumTokens: ClosedRange<Int> = 1...10_000_000
    /// Room a dead letter needs beside the job it carries whole: its key (a job id, at most 256
    /// bytes), its `salvo-…` headers (about 1 KB with a long reason) and the record's framing.
    static let deadLetterHeadroom = 16_384
    /// librdkafka's default `message.max.bytes`, which the worker's producer keeps unless
    /// `kafka.producer_properties` or `kafka.properties` set it.
    static let defaultMessageMaxBytes = 1_000_000
    /// The producer's `message.max.bytes`: librdkafka's own upper limit, and at least a 1 KiB job
    /// plus the dead letter's headroom.
    static let messageMaxBytes: ClosedRange<Int> = (1_024 + deadLetterHeadroom)...1_000_000_000

    /// A job at the limit must still fit, with the headroom, into its dead letter, which the
    /// producer refuses beyond `message.max.bytes`.
    static func maximumJobBytes(messageMaxBytes: Int) -> ClosedRange<Int> {
        1...(messageMaxBytes - deadLetterHeadroom)
    }

    /// The widest job limit any producer allows: what a configuration built in code is held to.
    static let maximumJobBytes = maximumJobBytes(messageMaxBytes: messageMaxBytes.upperBound)

    // MARK: shutdown

    /// Longer than an hour no orchestrator waits.
    static let drainDeadline: ClosedRange<Duration> = .seconds(1) ... .seconds(3_600)
}
