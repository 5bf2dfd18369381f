import Logging
import SalvoKafka

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads a worker's YAML configuration: the file, then the `SALVO_*` environment overrides
/// (``WorkerEnvironmentOverrides``), then credential and CA files (read once, here), then
/// ``WorkerConfiguration/validate()``.
///
/// Every failure is one ``SalvoWorkerError`` whose message names the file, the key path as the file
/// wrote it and the rule (`worker.yaml: apps.main.pool.connections: 100 is out of range 1…64`), so
/// an operator fixes it without reading code. Key material never appears in an error.
public struct WorkerConfigurationLoader: Sendable {
    /// The variables overrides and `password_env` are read from. Default: the process's.
    public var environment: [String: String]

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
    }

    /// Loads `path`; relative file paths inside it are taken from its directory.
    public func load(path: String) throws(SalvoWorkerError) -> LoadedWorkerConfiguration {
        let text: (yaml: String, directory: String)
        do throws(ConfigurationProblem) {
            text = try ConfigurationYAML.read(path)
        } catch {
            throw error.failure(in: path)
        }
        return try load(yaml: text.yaml, source: path, baseDirectory: text.directory)
    }

    /// Loads YAML text; `source` names it in errors, `baseDirectory` anchors relative file paths.
    public func load(
        yaml: String, source: String, baseDirectory: String = "."
    ) throws(SalvoWorkerError) -> LoadedWorkerConfiguration {
        do throws(ConfigurationProblem) {
            var file = try ConfigurationYAML.decode(WorkerConfigurationFile.self, from: yaml)
            let overrides = try WorkerEnvironmentOverrides(environment: environment).apply(to: &file)
            let builder = WorkerAppBuilder(baseDirectory: baseDirectory, environment: environment)
            let (configuration, logLevel) = try build(file, apps: builder)
            let logFormat = try Self.logFormat(file.logFormat)
            let warnings = file.apps.sorted { $0.key < $1.key }.flatMap { name, section in
                KeyFilePermissions.warnings(app: name, section, resolve: builder.resolve)
            }
            return LoadedWorkerConfiguration(
                configuration: configuration, logLevel: logLevel, logFormat: logFormat, source: source,
                environmentOverrides: overrides,
                warnings: warnings)
        } catch {
            throw error.failure(in: source)
        }
    }

    private func build(
        _ file: WorkerConfigurationFile, apps builder: WorkerAppBuilder
    ) throws(ConfigurationProblem) -> (WorkerConfiguration, Logger.Level) {
        let kafka = try file.kafka.clientConfiguration(resolve: builder.resolve)

        guard !file.apps.isEmpty else { throw ConfigurationProblem("apps", "configure at least one app") }
        guard file.apps.count <= ConfigurationBounds.apps.upperBound else {
            throw ConfigurationProblem("apps", ConfigurationBounds.tooManyApps(file.apps.count))
        }
        var apps: [String: WorkerApp] = [:]
        for (name, section) in file.apps.sorted(by: { $0.key < $1.key }) {
            apps[name] = try builder.build(name: name, section)
        }
        var configuration = WorkerConfiguration(kafka: kafka, apps: apps)
        configuration.kafkaConsumerProperties = file.kafka.consumerProperties
        if let value = file.kafka.commitInterval { configuration.commitInterval = value.value }
        if let value = file.kafka.checkpointInterval { configuration.checkpointInterval = value.value }
        if let value = file.kafka.checkpointNotifications { configuration.checkpointNotifications = value }
        configuration.maximumUnconfirmedSends = file.kafka.maximumUnconfirmedSends
        if let value = file.kafka.revokeWait { configuration.revokeWait = value.value }
        if let value = file.kafka.maximumUncommittedNotifications {
            configuration.maximumUncommittedNotifications = value
        }
        if let name = file.kafka.assignmentStrategy {
            guard let strategy = KafkaAssignmentStrategy.named(name) else {
                throw ConfigurationProblem(
                    "kafka.assignment_strategy",
                    "unknown strategy \"\(name)\"; use range, roundrobin or cooperative-sticky")
            }
            configuration.assignmentStrategy = strategy
        }
        if let text = file.kafka.startFrom { configuration.startFrom = try ConfigurationStartFrom.parse(text) }
        configuration.kafkaProducerProperties = file.kafka.producerProperties
        if let groupID = file.groupID { configuration.groupID = groupID }
        if let topics = file.topics {
            configuration.topics = WorkerTopics(
                jobs: topics.jobs ?? configuration.topics.jobs,
                priority: topics.priority ?? configuration.topics.priority,
                retry: topics.retry ?? configuration.topics.retry,
                feedback: topics.feedback ?? configuration.topics.feedback,
                deadLetter: topics.deadLetter ?? configuration.topics.deadLetter, outcomes: topics.outcomes,
                control: topics.control.resolved(default: nil) ?? configuration.topics.control,
                campaigns: topics.campaigns ?? configuration.topics.campaigns,
                progress: topics.progress.resolved(default: nil) ?? configuration.topics.progress)
            if case .disabled = topics.control { configuration.topics.followsControl = false }
            if case .disabled = topics.progress { configuration.topics.keepsCheckpoints = false }
            try check(prefix: "topics") { () throws(SalvoWorkerError) in try configuration.topics.validate() }
        }
        if let lanes = file.lanes {
            if let value = lanes.priorityWeight { configuration.lanes.priorityWeight = value }
            if let value = lanes.campaignWeight { configuration.lanes.campaignWeight = value }
            if let value = lanes.capacityPerLane { configuration.lanes.capacityPerLane = value }
            if let value = lanes.queueDelayTarget {
                configuration.lanes.queueDelayTarget = value.value == .zero ? nil : value.value
            }
        }
        if let retry = file.retry {
            apply(retry.backoff, to: &configuration.retry.backoff)
            apply(retry.tooManyRequests, to: &configuration.retry.tooManyRequests)
            if let value = retry.batchWindow { configuration.retry.batchWindow = value.value }
            if let value = retry.maximumHeld { configuration.retry.maximumHeldNotifications = value }
            if let value = retry.maximumHeldDelay { configuration.retry.maximumHeldDelay = value.value }
        }
        if let outcomes = file.outcomes {
            if let value = outcomes.maximumAttempts { configuration.outcomes.maximumAttempts = value }
            if let value = outcomes.maximumReplays { configuration.outcomes.maximumImmediateReplays = value }
            if let value = outcomes.deadLetterInvalidTokens { configuration.outcomes.deadLetterInvalidTokens = value }
        }
        file.health?.apply(to: &configuration.poolHealth)
        configuration.deviceRateLimit = file.deviceRateLimit.map(\.rateLimit).resolved(
            default: configuration.deviceRateLimit)
        if let limits = file.limits {
            if let value = limits.maximumJobBytes { configuration.maximumJobBytes = value }
            if let value = limits.maximumTokens { configuration.maximumTokens = value }
        }
        try Self.checkJobBytes(
            configuration.maximumJobBytes, isDefault: file.limits?.maximumJobBytes == nil, kafka: file.kafka)
        if let operations = file.operations {
            switch operations.listen {
            case .absent: break
            case .disabled: configuration.operations = nil
            case .value(let text):
                guard let listener = ConfigurationListenAddress.parse(text) else {
                    throw ConfigurationProblem("operations.listen", ConfigurationListenAddress.rule(text))
                }
                configuration.operations = listener
            }
        }
        if let deadline = file.drainDeadline { configuration.drainDeadline = deadline.value }
        let logLevel = try Self.logLevel(file.logLevel)
        try check { () throws(SalvoWorkerError) in try configuration.validate() }
        return (configuration, logLevel)
    }

    private func apply(_ section: WorkerConfigurationFile.Backoff?, to backoff: inout RetryBackoff) {
        guard let section else { return }
        if let value = section.initial { backoff.initialDelay = value.value }
        if let value = section.maximum { backoff.maximumDelay = value.value }
        if let value = section.multiplier { backoff.multiplier = value }
    }

    /// Runs a part's own validation. Its messages name the YAML keys they are about; `prefix`
    /// names the section for those that do not (topic names).
    private func check(prefix: String = "", _ body: () throws(SalvoWorkerError) -> Void) throws(ConfigurationProblem) {
        do throws(SalvoWorkerError) {
            try body()
        } catch {
            throw ConfigurationProblem(prefix, error.message)
        }
    }

    /// A dead letter carries the whole job plus its key and headers, and the producer refuses a
    /// record over its `message.max.bytes`: a job at the limit must leave
    /// ``ConfigurationBounds/deadLetterHeadroom`` below it, or its dead letter could never be
    /// written and would hold its partition. Checked here rather than in
    /// ``WorkerConfiguration/validate()`` because the producer's limit is only known from the
    /// file's Kafka properties.
    private static func checkJobBytes(
        _ value: Int, isDefault: Bool, kafka: WorkerConfigurationFile.Kafka
    ) throws(ConfigurationProblem) {
        let (messageMaxBytes, source) = try producerMessageMaxBytes(kafka)
        let range = ConfigurationBounds.maximumJobBytes(messageMaxBytes: messageMaxBytes)
        guard range.contains(value) else {
            throw ConfigurationProblem(
                "limits.max_job_bytes",
                range.outOfRange(isDefault ? "\(value) (the default)" : String(value))
                    + ": a dead letter carries the whole job and needs "
                    + "\(ConfigurationBounds.deadLetterHeadroom) bytes more within \(source) \(messageMaxBytes)")
        }
    }

    /// The producer's `message.max.bytes` and where it comes from: `producer_properties` win over
    /// `properties` (as in ``WorkerEngine``), and librdkafka's default applies without either.
    private static func producerMessageMaxBytes(
        _ kafka: WorkerConfigurationFile.Kafka
    ) throws(ConfigurationProblem) -> (Int, String) {
        let name = "message.max.bytes"
        let range = ConfigurationBounds.messageMaxBytes
        for (section, properties) in [
            ("kafka.producer_properties", kafka.producerProperties), ("kafka.properties", kafka.properties),
        ] {
            guard let text = properties[name] else { continue }
            let path = "\(section).\(name)"
            guard let value = Int(text.filter { !$0.isWhitespace }) else {
                throw ConfigurationProblem(path, "\"\(text)\" is not an integer within \(range.configurationText)")
            }
            guard range.contains(value) else { throw ConfigurationProblem(path, range.outOfRange(text)) }
            return (value, path)
        }
        return (ConfigurationBounds.defaultMessageMaxBytes, "librdkafka's default \(name)")
    }

    private static func logFormat(_ text: String?) throws(ConfigurationProblem) -> WorkerLogFormat {
        guard let text else { return .text }
        guard let format = WorkerLogFormat(rawValue: text.lowercased()) else {
            let formats = WorkerLogFormat.allCases.map(\.rawValue).joined(separator: ", ")
            throw ConfigurationProblem("log_format", "\"\(text)\" is not a log format (\(formats))")
        }
        return format
    }

    private static func logLevel(_ text: String?) throws(ConfigurationProblem) -> Logger.Level {
        guard let text else { return .info }
        guard let level = Logger.Level(rawValue: text.lowercased()) else {
            let levels = Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")
            throw ConfigurationProblem("log_level", "\"\(text)\" is not a log level (\(levels))")
        }
        return level
    }
}
