import ArgumentParser
import Foundation
import Logging
import NIOPosix
import SalvoHTTP2
import SalvoKafka
import SalvoWorker
import ServiceLifecycle
import UnixSignals

/// `salvo worker`: consume jobs, send them through the APNs pools, publish feedback, commit.
///
/// Configuration is a YAML file with `SALVO_*` environment overrides (docs/configuration.md).
/// SIGTERM and SIGINT drain: stop fetching, finish or hand off in-flight work, commit, exit 0 (69
/// when the final commit still fails at the drain's deadline, naming what the next owner re-sends).
struct WorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Run a worker: Kafka jobs in, APNs HTTP/2 out, feedback and dead letters back to Kafka.",
        discussion: "Configuration reference: docs/configuration.md; example: config/worker.example.yaml."
    )

    @Option(help: "Configuration file (YAML). SALVO_* environment variables override it.")
    var config: String?

    @Option(
        name: .customLong("check-config"),
        help:
            "Load and validate this configuration file (credentials included) without connecting, print it with secrets redacted, and exit."
    )
    var checkConfig: String?

    @Option(
        name: .customLong("log-format"),
        help:
            "text (human) or json (one object per line, for log shippers). Default: SALVO_LOG_FORMAT, else the file's log_format, else text."
    )
    var logFormat: LogFormat?

    func validate() throws {
        guard (config == nil) != (checkConfig == nil) else {
            throw ValidationError("give exactly one of --config FILE (run) or --check-config FILE (validate)")
        }
    }

    func run() async throws {
        let loader = WorkerConfigurationLoader()
        if let path = checkConfig {
            let loaded = try Self.load(path, with: loader, console: WorkerConsole(format: .text))
            print(loaded.description)
            for warning in loaded.warnings { print("warning: \(warning)") }
            print("configuration OK: \(path)")
            return
        }
        // Before the file is read, only the flag and the environment can ask for JSON.
        let early = WorkerConsole(format: logFormat ?? LogFormat.fromEnvironment(loader.environment) ?? .text)
        let loaded = try Self.load(config!, with: loader, console: early)
        let console = WorkerConsole(format: logFormat ?? LogFormat(loaded.logFormat))
        console.format.bootstrap()
        var logger = Logger(label: WorkerConsole.label)
        logger.logLevel = loaded.logLevel
        for warning in loaded.warnings { logger.warning("\(warning)") }
        if let warning = RDKafkaLibrary.versionWarning { logger.warning("\(warning)") }
        let metrics = WorkerMetricsBootstrap()
        metrics.bootstrapMetricsSystem()
        metrics.publishBuildInfo(
            version: SalvoVersion.current, librdkafka: RDKafkaLibrary.version, nghttp2: NGHTTP2Library.version)

        let configuration = loaded.configuration
        let engine: WorkerEngine
        do {
            engine = try WorkerEngine(
                configuration: configuration, eventLoopGroup: MultiThreadedEventLoopGroup.singleton, logger: logger)
        } catch {
            throw console.failure("cannot start the worker: \(error)", exit: CommandExit.status(of: error) ?? .software)
        }
        // A ServiceGroup shuts its services down in reverse order, each after the one behind it
        // has returned: the operations listener goes first in the list so that it stops last,
        // and answers probes (liveness 200, readiness 503) and scrapes through the engine's drain.
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = []
        if let listener = configuration.operations {
            var operationsLogger = logger
            operationsLogger[metadataKey: "component"] = "operations"
            let operations = WorkerOperationsServer(
                listener: listener, metrics: metrics, probes: WorkerProbes(engine: engine),
                logger: operationsLogger)
            let port: Int
            do {
                port = try await operations.start()
            } catch {
                throw console.failure("\(error)", exit: .unavailable)
            }
            console.announce(
                "worker operations on http://\(listener.host):\(port) (/metrics, /health/started, /health/live, /health/ready)",
                metadata: ["address": "\(listener.host):\(port)"])
            services.append(.init(service: operations))
        }
        services.append(
            .init(
                service: engine, successTerminationBehavior: .gracefullyShutdownGroup,
                failureTerminationBehavior: .gracefullyShutdownGroup))
        console.announce(
            "worker started: group \(configuration.groupID), apps \(configuration.apps.keys.sorted().joined(separator: ", ")), configuration \(loaded.source)",
            metadata: ["version": "\(SalvoVersion.current)"])

        var groupConfiguration = ServiceGroupConfiguration(services: services, logger: logger)
        groupConfiguration.gracefulShutdownSignals = [.sigterm, .sigint]
        // The engine bounds its own drain; this only stops a stuck group after a margin.
        groupConfiguration.maximumGracefulShutdownDuration = .init(configuration.drainDeadline + .seconds(10))
        do {
            try await ServiceGroup(configuration: groupConfiguration).run()
        } catch let error as SalvoWorkerError where error.code == .refusedToStart {
            // The cluster does not match the configuration: the message is the operator's line.
            throw console.failure("cannot start the worker: \(error.message)", exit: .configuration)
        } catch {
            throw console.failure(
                "worker stopped on an error: \(error)", exit: CommandExit.status(of: error) ?? .software)
        }
        console.announce("worker stopped: \(engine.statistics())")
    }

    private static func load(
        _ path: String, with loader: WorkerConfigurationLoader, console: WorkerConsole
    ) throws -> LoadedWorkerConfiguration {
        do {
            return try loader.load(path: path)
        } catch {
            throw console.failure(error.message, exit: .configuration)
        }
    }
}
