import ArgumentParser
import Foundation
import Logging
import NIOPosix
import SalvoWorker
import ServiceLifecycle

/// `salvo worker`: consume jobs, send them through the APNs pools, publish feedback, commit.
///
/// Configuration is a YAML file with `SALVO_*` environment overrides (docs/configuration.md).
/// SIGTERM and SIGINT drain: stop fetching, finish or hand off in-flight work, commit, exit 0.
struct WorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Run a worker: Kafka jobs in, APNs HTTP/2 out, feedback and dead letters back to Kafka.",
        discussion: "Configuration reference: docs/configuration.md; example: config/worker.example.yaml."
    )

    @Option(help: "Configuration file (YAML). SALVO_* environment variables override it.")
    var config: String?

    @Option(name: .customLong("check-config"), help: "Load and validate this configuration file (credentials included) without connecting, print it with secrets redacted, and exit.")
    var checkConfig: String?

    @Option(name: .customLong("log-format"), help: "text (human) or json (one object per line, for log shippers).")
    var logFormat: LogFormat = .text

    enum LogFormat: String, ExpressibleByArgument, CaseIterable {
        case text
        case json
    }

    func validate() throws {
        guard (config == nil) != (checkConfig == nil) else {
            throw ValidationError("give exactly one of --config FILE (run) or --check-config FILE (validate)")
        }
    }

    func run() async throws {
        let loader = WorkerConfigurationLoader()
        if let path = checkConfig {
            let loaded = try Self.load(path, with: loader)
            print(loaded.description)
            print("configuration OK: \(path)")
            return
        }
        let loaded = try Self.load(config!, with: loader)
        let format = self.logFormat
        LoggingSystem.bootstrap { label in
            switch format {
            case .text: return StreamLogHandler.standardError(label: label)
            case .json: return JSONLogHandler(label: label)
            }
        }
        var logger = Logger(label: "salvo.worker")
        logger.logLevel = loaded.logLevel
        let metrics = WorkerMetricsBootstrap()
        metrics.bootstrapMetricsSystem()

        let configuration = loaded.configuration
        let engine: WorkerEngine
        do {
            engine = try WorkerEngine(configuration: configuration, eventLoopGroup: MultiThreadedEventLoopGroup.singleton, logger: logger)
        } catch {
            throw CommandFailure("cannot start the worker: \(error)")
        }
        var services = [
            ServiceGroupConfiguration.ServiceConfiguration(
                service: engine, successTerminationBehavior: .gracefullyShutdownGroup,
                failureTerminationBehavior: .gracefullyShutdownGroup)
        ]
        if let listener = configuration.operations {
            var operationsLogger = logger
            operationsLogger[metadataKey: "component"] = "operations"
            let operations = WorkerOperationsServer(
                listener: listener, registry: metrics.registry, isReady: { engine.isReady }, logger: operationsLogger)
            let port: Int
            do {
                port = try await operations.start()
            } catch {
                throw CommandFailure("\(error)")
            }
            print("worker operations on http://\(listener.host):\(port) (/metrics, /health/live, /health/ready)")
            fflush(nil)  // nil: every stream, so a supervisor reading the pipe sees the line now
            services.append(.init(service: operations))
        }
        print("worker started: group \(configuration.groupID), apps \(configuration.apps.keys.sorted().joined(separator: ", ")), configuration \(loaded.source)")
        fflush(nil)

        var groupConfiguration = ServiceGroupConfiguration(services: services, logger: logger)
        groupConfiguration.gracefulShutdownSignals = [.sigterm, .sigint]
        // The engine bounds its own drain; this only stops a stuck group after a margin.
        groupConfiguration.maximumGracefulShutdownDuration = .init(configuration.drainDeadline + .seconds(10))
        do {
            try await ServiceGroup(configuration: groupConfiguration).run()
        } catch {
            throw CommandFailure("worker stopped on an error: \(error)")
        }
        print("worker stopped: \(engine.statistics())")
        fflush(nil)
    }

    private static func load(_ path: String, with loader: WorkerConfigurationLoader) throws -> LoadedWorkerConfiguration {
        do {
            return try loader.load(path: path)
        } catch {
            throw CommandFailure(error.message)
        }
    }
}
