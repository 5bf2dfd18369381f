/// The YAML document `salvo worker --config FILE` reads, key for key (snake_case), before any
/// default, environment override or file read is applied. Every section refuses keys it does not
/// know, so a typo fails at start with the key's path.
///
/// Optional fields are the ones with a default; ``WorkerConfigurationLoader`` turns this into a
/// ``WorkerConfiguration``. The reference is `docs/configuration.md`.
struct WorkerConfigurationFile: Decodable, Sendable {
    var kafka: Kafka
    var groupID: String?
    var topics: Topics?
    var apps: [String: App]
    var lanes: Lanes?
    var retry: Retry?
    var outcomes: Outcomes?
    var health: Health?
    var deviceRateLimit: ConfigurationSetting<RateLimitSection>
    var limits: Limits?
    var operations: Operations?
    var drainDeadline: ConfigurationDuration?
    var logLevel: String?
    var logFormat: String?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case kafka
        case groupID = "group_id"
        case topics, apps, lanes, retry, outcomes, health
        case deviceRateLimit = "device_rate_limit"
        case limits, operations
        case drainDeadline = "drain_deadline"
        case logLevel = "log_level"
        case logFormat = "log_format"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.strictContainer(keyedBy: CodingKeys.self)
        kafka = try container.decode(Kafka.self, forKey: .kafka)
        groupID = try container.decodeIfPresent(String.self, forKey: .groupID)
        topics = try container.decodeIfPresent(Topics.self, forKey: .topics)
        apps = try container.decode([String: App].self, forKey: .apps)
        lanes = try container.decodeIfPresent(Lanes.self, forKey: .lanes)
        retry = try container.decodeIfPresent(Retry.self, forKey: .retry)
        outcomes = try container.decodeIfPresent(Outcomes.self, forKey: .outcomes)
        health = try container.decodeIfPresent(Health.self, forKey: .health)
        deviceRateLimit = try container.decodeSetting(RateLimitSection.self, forKey: .deviceRateLimit)
        limits = try container.decodeIfPresent(Limits.self, forKey: .limits)
        operations = try container.decodeIfPresent(Operations.self, forKey: .operations)
        drainDeadline = try container.decodeIfPresent(
            ConfigurationDuration.self, forKey: .drainDeadline, within: ConfigurationBounds.drainDeadline)
        logLevel = try container.decodeIfPresent(String.self, forKey: .logLevel)
        logFormat = try container.decodeIfPresent(String.self, forKey: .logFormat)
    }

    /// `kafka:` — brokers (a list, or one comma-separated string), client id, raw librdkafka
    /// properties, and the files secret properties are read from
    /// (`WorkerConfigurationFile+KafkaClient.swift`, shared with every command's `--kafka-config`).
    struct Kafka: Decodable, Sendable {
        var brokers: [String]
        var clientID: String?
        var properties: [String: String]
        /// `properties_files: {sasl.password: /run/secrets/kafka-password}`: property → file.
        var propertiesFiles: [String: String]
        var consumerProperties: [String: String]
        var producerProperties: [String: String]
        var commitInterval: ConfigurationDuration?
        var checkpointInterval: ConfigurationDuration?
        var checkpointNotifications: Int?
        var maximumUnconfirmedSends: Int?
        var revokeWait: ConfigurationDuration?
        var maximumUncommittedNotifications: Int?
        var assignmentStrategy: String?
        var startFrom: String?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case brokers
            case clientID = "client_id"
            case properties
            case propertiesFiles = "properties_files"
            case consumerProperties = "consumer_properties"
            case producerProperties = "producer_properties"
            case commitInterval = "commit_interval"
            case checkpointInterval = "checkpoint_interval"
            case checkpointNotifications = "checkpoint_notifications"
            case maximumUnconfirmedSends = "max_unconfirmed_sends"
            case revokeWait = "revoke_wait"
            case maximumUncommittedNotifications = "max_uncommitted_notifications"
            case assignmentStrategy = "assignment_strategy"
            case startFrom = "start_from"
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.strictContainer(keyedBy: CodingKeys.self)
            if let list = try? container.decode([String].self, forKey: .brokers) {
                brokers = list
            } else {
                brokers = Self.brokerList(try container.decode(String.self, forKey: .brokers))
            }
            brokers = brokers.filter { !$0.isEmpty }
            clientID = try container.decodeIfPresent(String.self, forKey: .clientID)
            properties = try container.decodeIfPresent([String: String].self, forKey: .properties) ?? [:]
            propertiesFiles = try container.decodeIfPresent([String: String].self, forKey: .propertiesFiles) ?? [:]
            consumerProperties =
                try container.decodeIfPresent([String: String].self, forKey: .consumerProperties) ?? [:]
            producerProperties =
                try container.decodeIfPresent([String: String].self, forKey: .producerProperties) ?? [:]
            commitInterval = try container.decodeIfPresent(
                ConfigurationDuration.self, forKey: .commitInterval, within: ConfigurationBounds.commitInterval)
            checkpointInterval = try container.decodeIfPresent(
                ConfigurationDuration.self, forKey: .checkpointInterval, within: ConfigurationBounds.checkpointInterval)
            checkpointNotifications = try container.decodeIfPresent(
                Int.self, forKey: .checkpointNotifications, within: ConfigurationBounds.checkpointNotifications)
            maximumUnconfirmedSends = try container.decodeIfPresent(
                Int.self, forKey: .maximumUnconfirmedSends, within: ConfigurationBounds.maximumUnconfirmedSends)
            revokeWait = try container.decodeIfPresent(
                ConfigurationDuration.self, forKey: .revokeWait, within: ConfigurationBounds.revokeWait)
            maximumUncommittedNotifications = try container.decodeIfPresent(
                Int.self, forKey: .maximumUncommittedNotifications, within: ConfigurationBounds.maximumUncommitted)
            assignmentStrategy = try container.decodeIfPresent(String.self, forKey: .assignmentStrategy)
            startFrom = try container.decodeIfPresent(String.self, forKey: .startFrom)
        }
    }

    /// `topics:` — `outcomes: null` (the default) turns the audit topic off; `control: null`
    /// turns campaign control off, `progress: null` job checkpoints.
    struct Topics: Decodable, Sendable {
        var jobs, priority, retry, feedback, deadLetter: String?
        var outcomes: String?
        var campaigns: String?
        var control, progress: ConfigurationSetting<String>

        enum CodingKeys: String, CodingKey, CaseIterable {
            case jobs, priority, retry, feedback
            case deadLetter = "dead_letter"
            case outcomes, control, campaigns, progress
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.strictContainer(keyedBy: CodingKeys.self)
            jobs = try container.decodeIfPresent(String.self, forKey: .jobs)
            priority = try container.decodeIfPresent(String.self, forKey: .priority)
            retry = try container.decodeIfPresent(String.self, forKey: .retry)
            feedback = try container.decodeIfPresent(String.self, forKey: .feedback)
            deadLetter = try container.decodeIfPresent(String.self, forKey: .deadLetter)
            outcomes = try container.decodeIfPresent(String.self, forKey: .outcomes)
            control = try container.decodeSetting(String.self, forKey: .control)
            campaigns = try container.decodeIfPresent(String.self, forKey: .campaigns)
            progress = try container.decodeSetting(String.self, forKey: .progress)
        }
    }

    /// `lanes:`
    struct Lanes: Decodable, Sendable {
        var priorityWeight, campaignWeight, capacityPerLane: Int?
        var queueDelayTarget: ConfigurationDuration?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case priorityWeight = "priority_weight"
            case campaignWeight = "campaign_weight"
            case capacityPerLane = "capacity_per_lane"
            case queueDelayTarget = "queue_delay_target"
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.strictContainer(keyedBy: CodingKeys.self)
            priorityWeight = try container.decodeIfPresent(
                Int.self, forKey: .priorityWeight, within: ConfigurationBounds.laneWeight)
            campaignWeight = try container.decodeIfPresent(
                Int.self, forKey: .campaignWeight, within: ConfigurationBounds.laneWeight)
            capacityPerLane = try container.decodeIfPresent(
                Int.self, forKey: .capacityPerLane, within: ConfigurationBounds.capacityPerLane)
            queueDelayTarget = try container.decodeIfPresent(
                ConfigurationDuration.self, forKey: .queueDelayTarget, within: ConfigurationBounds.queueDelayTarget)
        }
    }

    /// `retry:`
    struct Retry: Decodable, Sendable {
        var backoff, tooManyRequests: Backoff?
        var batchWindow: ConfigurationDuration?
        var maximumHeld: Int?
        var maximumHeldDelay: ConfigurationDuration?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case backoff
            case tooManyRequests = "too_many_requests"
            case batchWindow = "batch_window"
            case maximumHeld = "max_held"
            case maximumHeldDelay = "max_held_delay"
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.strictContainer(keyedBy: CodingKeys.self)
            backoff = try container.decodeIfPresent(Backoff.self, forKey: .backoff)
            tooManyRequests = try container.decodeIfPresent(Backoff.self, forKey: .tooManyRequests)
            batchWindow = try container.decodeIfPresent(
                ConfigurationDuration.self, forKey: .batchWindow, within: ConfigurationBounds.batchWindow)
            maximumHeld = try container.decodeIfPresent(
                Int.self, forKey: .maximumHeld, within: ConfigurationBounds.maximumHeld)
            maximumHeldDelay = try container.decodeIfPresent(
                ConfigurationDuration.self, forKey: .maximumHeldDelay, within: ConfigurationBounds.maximumHeldDelay)
        }
    }

    /// `retry.backoff:` and `retry.too_many_requests:`
    struct Backoff: Decodable, Sendable {
        var initial, maximum: ConfigurationDuration?
        var multiplier: Double?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case initial
            case maximum = "max"
            case multiplier
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.strictContainer(keyedBy: CodingKeys.self)
            initial = try container.decodeIfPresent(
                ConfigurationDuration.self, forKey: .initial, within: ConfigurationBounds.backoffInitial)
            maximum = try container.decodeIfPresent(
                ConfigurationDuration.self, forKey: .maximum, within: ConfigurationBounds.backoffMaximum)
            multiplier = try container.decodeIfPresent(
                Double.self, forKey: .multiplier, within: ConfigurationBounds.backoffMultiplier)
        }
    }

    /// `outcomes:`
    struct Outcomes: Decodable, Sendable {
        var maximumAttempts, maximumReplays: Int?
        var deadLetterInvalidTokens: Bool?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case maximumAttempts = "max_attempts"
            case maximumReplays = "max_replays"
            case deadLetterInvalidTokens = "dlq_invalid_tokens"
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.strictContainer(keyedBy: CodingKeys.self)
            maximumAttempts = try container.decodeIfPresent(
                Int.self, forKey: .maximumAttempts, within: ConfigurationBounds.maximumAttempts)
            maximumReplays = try container.decodeIfPresent(
                Int.self, forKey: .maximumReplays, within: ConfigurationBounds.maximumReplays)
            deadLetterInvalidTokens = try container.decodeIfPresent(Bool.self, forKey: .deadLetterInvalidTokens)
        }
    }

    /// `device_rate_limit:` and an app's `rate_limit:`. `burst` defaults to one second's worth.
    struct RateLimitSection: Decodable, Sendable {
        var perSecond: Double
        var burst: Int?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case perSecond = "per_second"
            case burst
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.strictContainer(keyedBy: CodingKeys.self)
            perSecond = try container.decode(Double.self, forKey: .perSecond, within: ConfigurationBounds.perSecond)
            burst = try container.decodeIfPresent(Int.self, forKey: .burst, within: ConfigurationBounds.burst)
        }

        /// One second's worth of sends is at least 1 and, for the fastest rates, the largest burst.
        var rateLimit: RateLimit {
            let oneSecond = Int(min(perSecond, Double(ConfigurationBounds.burst.upperBound)).rounded(.up))
            return RateLimit(perSecond: perSecond, burst: burst ?? max(1, oneSecond))
        }
    }

    /// `limits:` — the range of `max_job_bytes` depends on the producer's `message.max.bytes`,
    /// so ``WorkerConfigurationLoader`` checks it once both are known.
    struct Limits: Decodable, Sendable {
        var maximumJobBytes, maximumTokens: Int?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case maximumJobBytes = "max_job_bytes"
            case maximumTokens = "max_tokens"
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.strictContainer(keyedBy: CodingKeys.self)
            maximumJobBytes = try container.decodeIfPresent(Int.self, forKey: .maximumJobBytes)
            maximumTokens = try container.decodeIfPresent(
                Int.self, forKey: .maximumTokens, within: ConfigurationBounds.maximumTokens)
        }
    }

    /// `operations:` — `listen: null` turns the listener off.
    struct Operations: Decodable, Sendable {
        var listen: ConfigurationSetting<String>

        enum CodingKeys: String, CodingKey, CaseIterable {
            case listen
        }

        init(listen: ConfigurationSetting<String>) {
            self.listen = listen
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.strictContainer(keyedBy: CodingKeys.self)
            listen = try container.decodeSetting(String.self, forKey: .listen)
        }
    }
}
