import Logging
import SalvoKafka
import Yams

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads a worker's YAML configuration: the file, then the `SALVO_*` environment overrides
/// (``WorkerEnvironmentOverrides``), then credential and CA files (read once, here), then
/// ``WorkerConfiguration/validate()``.
///
/// Every failure is one ``SalvoWorkerError`` whose message names the file, the key path and the
/// rule (`worker.yaml: apps.main.pool.connections: connectionCount must be within 1...64`), so an
/// operator fixes it without reading code. Key material never appears in an error.
public struct WorkerConfigurationLoader: Sendable {
    /// The variables overrides and `password_env` are read from. Default: the process's.
    public var environment: [String: String]

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
    }

    /// Loads `path`; relative file paths inside it are taken from its directory.
    public func load(path: String) throws(SalvoWorkerError) -> LoadedWorkerConfiguration {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path)) else {
            throw .invalidConfiguration("\(path): cannot read the configuration file")
        }
        guard let yaml = String(data: data, encoding: .utf8) else {
            throw .invalidConfiguration("\(path): the configuration file is not UTF-8 text")
        }
        let directory = path.contains("/") ? String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)]) : "."
        return try load(yaml: yaml, source: path, baseDirectory: directory.isEmpty ? "/" : directory)
    }

    /// Loads YAML text; `source` names it in errors, `baseDirectory` anchors relative file paths.
    public func load(yaml: String, source: String, baseDirectory: String = ".") throws(SalvoWorkerError) -> LoadedWorkerConfiguration {
        do throws(ConfigurationProblem) {
            var file: WorkerConfigurationFile
            do {
                file = try YAMLDecoder().decode(WorkerConfigurationFile.self, from: yaml)
            } catch let error as DecodingError {
                throw ConfigurationProblem(error)
            } catch {
                throw ConfigurationProblem(syntaxError: error, path: [])
            }
            let overrides = try WorkerEnvironmentOverrides(environment: environment).apply(to: &file)
            let builder = WorkerAppBuilder(baseDirectory: baseDirectory, environment: environment)
            let (configuration, logLevel) = try build(file, apps: builder)
            return LoadedWorkerConfiguration(
                configuration: configuration, logLevel: logLevel, source: source, environmentOverrides: overrides)
        } catch {
            throw .invalidConfiguration(error.path.isEmpty ? "\(source): \(error.rule)" : "\(source): \(error.path): \(error.rule)")
        }
    }

    private func build(
        _ file: WorkerConfigurationFile, apps builder: WorkerAppBuilder
    ) throws(ConfigurationProblem) -> (WorkerConfiguration, Logger.Level) {
        guard !file.kafka.brokers.isEmpty else { throw ConfigurationProblem("kafka.brokers", "list at least one host:port") }
        var kafka = KafkaClientConfiguration(brokers: file.kafka.brokers, properties: file.kafka.properties)
        if let clientID = file.kafka.clientID { kafka.clientID = clientID }

        guard !file.apps.isEmpty else { throw ConfigurationProblem("apps", "configure at least one app") }
        var apps: [String: WorkerApp] = [:]
        for (name, section) in file.apps.sorted(by: { $0.key < $1.key }) {
            apps[name] = try builder.build(name: name, section)
        }
        var configuration = WorkerConfiguration(kafka: kafka, apps: apps)
        configuration.kafkaConsumerProperties = file.kafka.consumerProperties
        configuration.kafkaProducerProperties = file.kafka.producerProperties
        if let groupID = file.groupID { configuration.groupID = groupID }
        if let topics = file.topics {
            configuration.topics = WorkerTopics(
                jobs: topics.jobs ?? configuration.topics.jobs, priority: topics.priority ?? configuration.topics.priority,
                retry: topics.retry ?? configuration.topics.retry, feedback: topics.feedback ?? configuration.topics.feedback,
                deadLetter: topics.deadLetter ?? configuration.topics.deadLetter, outcomes: topics.outcomes)
            try check("topics") { () throws(SalvoWorkerError) in try configuration.topics.validate() }
        }
        if let lanes = file.lanes {
            if let value = lanes.priorityWeight { configuration.lanes.priorityWeight = value }
            if let value = lanes.campaignWeight { configuration.lanes.campaignWeight = value }
            if let value = lanes.capacityPerLane { configuration.lanes.capacityPerLane = value }
            try check("lanes") { () throws(SalvoWorkerError) in try configuration.lanes.validate() }
        }
        if let retry = file.retry {
            apply(retry.backoff, to: &configuration.retry.backoff)
            apply(retry.tooManyRequests, to: &configuration.retry.tooManyRequests)
            if let value = retry.batchWindow { configuration.retry.batchWindow = value.value }
            if let value = retry.maximumHeld { configuration.retry.maximumHeldNotifications = value }
            if let value = retry.maximumHeldDelay { configuration.retry.maximumHeldDelay = value.value }
            try check("retry") { () throws(SalvoWorkerError) in try configuration.retry.validate() }
        }
        if let outcomes = file.outcomes {
            if let value = outcomes.maximumAttempts { configuration.outcomes.maximumAttempts = value }
            if let value = outcomes.maximumReplays { configuration.outcomes.maximumImmediateReplays = value }
            if let value = outcomes.deadLetterInvalidTokens { configuration.outcomes.deadLetterInvalidTokens = value }
            try check("outcomes") { () throws(SalvoWorkerError) in try configuration.outcomes.validate() }
        }
        configuration.deviceRateLimit = file.deviceRateLimit.map(\.rateLimit).resolved(default: configuration.deviceRateLimit)
        if let limits = file.limits {
            if let value = limits.maximumJobBytes { configuration.maximumJobBytes = value }
            if let value = limits.maximumTokens { configuration.maximumTokens = value }
        }
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
        try check("") { () throws(SalvoWorkerError) in try configuration.validate() }
        return (configuration, logLevel)
    }

    private func apply(_ section: WorkerConfigurationFile.Backoff?, to backoff: inout RetryBackoff) {
        guard let section else { return }
        if let value = section.initial { backoff.initialDelay = value.value }
        if let value = section.maximum { backoff.maximumDelay = value.value }
        if let value = section.multiplier { backoff.multiplier = value }
    }

    /// Runs a part's own validation, reporting its failure under the part's key path.
    private func check(_ path: String, _ body: () throws(SalvoWorkerError) -> Void) throws(ConfigurationProblem) {
        do throws(SalvoWorkerError) {
            try body()
        } catch {
            throw ConfigurationProblem(path, error.message)
        }
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
