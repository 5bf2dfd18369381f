import ArgumentParser
import Foundation
import NIOPosix
import NIOSSL
import SalvoAPNs
import SalvoWorker

/// What every `salvo channels` subcommand takes: the app and environment, and where its
/// credential comes from: the worker's configuration file (`--worker-config`, `--app` naming an
/// app there) or flags like `salvo send` (`--app` is then the bundle id).
struct ChannelsOptions: ParsableArguments {
    @Option(help: "The app: its name in --worker-config, or its bundle id with credential flags.")
    var app: String

    @Option(help: "production or sandbox (development). Default: the app's default environment, or production.")
    var environment: String?

    @Option(
        name: .customLong("worker-config"),
        help: "The worker's YAML configuration file: the app's bundle id, credential and transport.")
    var workerConfig: String?

    @OptionGroup var credentials: SendCommand.Credentials

    @Option(help: "The channel-management host. Default: Apple's (api-manage-broadcast[.sandbox].push.apple.com).")
    var host: String?

    @Option(help: "The channel-management port (Apple: 2196 production, 2195 sandbox; the mock's --broadcast-listen).")
    var port: Int?

    @OptionGroup var transport: ChannelsTransportFlags

    func validate() throws {
        if let port = self.port, !(1...65_535).contains(port) {
            throw ValidationError("--port must be within 1…65535, got \(port)")
        }
    }

    /// Where and as whom requests go.
    struct Target {
        var bundleID: APNsTopic
        var credential: APNsCredential
        var endpoint: APNsEnvironment
        var configuration: APNsConnection.Configuration
    }

    func target() throws -> Target {
        let kind = try self.environment.map(Self.kind)
        var configuration = APNsConnection.Configuration()
        let bundle: String
        let credential: APNsCredential
        var pushEndpoint: APNsEnvironment
        if let path = self.workerConfig {
            guard self.credentials.keyFile == nil, self.credentials.certFile == nil, self.credentials.p12File == nil
            else {
                throw ValidationError("give --worker-config or credential flags, not both")
            }
            let loaded = try WorkerConfigurationLoader().load(path: path)
            guard let app = loaded.configuration.apps[self.app] else {
                throw ValidationError(
                    "\(path) has no app \"\(self.app)\" (apps: \(loaded.configuration.apps.keys.sorted().joined(separator: ", ")))"
                )
            }
            let environment = kind ?? app.defaultEnvironment
            guard let endpoint = app.endpoints[environment] else {
                throw ValidationError("app \"\(self.app)\" has no \(environment.rawValue) environment in \(path)")
            }
            (bundle, credential, pushEndpoint) = (app.bundleID, app.credential, endpoint)
            configuration = app.pool.connection
        } else {
            credential = try ChannelsCredentialFlags(self.credentials).credential()
            bundle = self.app
            pushEndpoint = kind == .sandbox ? .sandbox : .production
        }
        configuration = try self.transport.applied(to: configuration)
        guard let bundleID = APNsTopic(headerValue: bundle.utf8) else {
            throw ValidationError("\"\(bundle)\" is not a bundle id")
        }
        let endpoint: APNsEnvironment
        switch (pushEndpoint, self.host, self.port) {
        case (_, nil, nil):
            guard case .custom = pushEndpoint else {
                endpoint = pushEndpoint.channelManagement
                break
            }
            throw ValidationError(
                "a custom endpoint (a mock) needs --port (and --host) of its channel-management listener")
        default:
            let apple = pushEndpoint.channelManagement
            let host = self.host ?? (pushEndpoint.host == apple.host ? apple.host : pushEndpoint.host)
            endpoint = .custom(host: host, port: self.port ?? apple.port, behavesAs: pushEndpoint.kind)
        }
        return Target(bundleID: bundleID, credential: credential, endpoint: endpoint, configuration: configuration)
    }

    private static func kind(_ text: String) throws -> APNsEnvironment.Kind {
        switch text {
        case "production": return .production
        case "sandbox", "development": return .sandbox
        default: throw ValidationError("unknown environment \"\(text)\": use production or sandbox")
        }
    }

    /// Runs one request through a channel client and prints its answer; exit 1 when refused,
    /// 2 when no answer came.
    /// - Parameter details: fields printed after the answer's own (a read's policy, a list).
    func run(
        details: (APNsChannelResponse) -> [(String, String)] = { _ in [] },
        _ body: (APNsChannelClient, Target) async throws(APNsError) -> APNsChannelResponse
    ) async throws {
        let target = try self.target()
        let client = try APNsChannelClient(
            configuration: target.configuration, eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
        let response: APNsChannelResponse
        do {
            response = try await body(client, target)
        } catch {
            await client.shutdown()
            self.emit([
                ("endpoint", target.endpoint.description), ("error", error.code.description),
                ("message", error.message),
            ])
            throw CommandExit.status(of: error).exitCode
        }
        await client.shutdown()
        let extra = response.isSuccess ? details(response) : []
        self.emit([("endpoint", target.endpoint.description)] + ChannelsAnswer.fields(response) + extra)
        if !response.isSuccess { throw CommandExit.refused.exitCode }
    }

    func emit(_ fields: [(String, String)]) {
        ChannelsAnswer.emit(fields, json: self.transport.json)
    }
}
