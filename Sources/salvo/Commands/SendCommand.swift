import ArgumentParser
import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import SalvoAPNs
import Yams

/// `salvo send`: one push from the command line, printing APNs's answer, for checking a
/// credential, a token or a payload before a campaign. It uses one connection, not a pool, so a
/// TLS or credential failure is reported at once with the transport's own words.
struct SendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Send one notification and print APNs's answer (for debugging a credential).",
        discussion: """
            Token authentication: --key-file AuthKey_KEYID.p8 --team-id TEAMID [--key-id KEYID].
            Certificate authentication: --cert-file cert.pem --cert-key-file key.pem, or --p12-file cert.p12.
            Credentials and destination may come from --config FILE (YAML, as the worker's file, with the
            same names in snake_case, e.g. key_file: ..., team_id: ..., environment: sandbox; JSON is
            YAML too); flags win.
            A password only from a file or a variable: --password-file FILE or --password-env NAME
            (password_file, password_env in --config).
            Live Activity broadcast: --channel-id ID --apns-topic BUNDLE [--expiration 0] [--priority 10] instead of
            --device-token (POST /4/broadcasts/apps/BUNDLE; channels come from `salvo channels create`).
            Exit status (docs/cli.md): 0 accepted, 1 refused by APNs, 69 no answer (connection, TLS, timeout),
            64 a usage error (a flag out of range, a field APNs or HTTP/2 would refuse), 78 a key,
            certificate or password that cannot be read.
            """
    )

    @Option(name: .customLong("device-token"), help: "The device token, hex.")
    var deviceToken: String?

    @Option(name: .customLong("channel-id"), help: "Broadcast to this Live Activity channel instead (apns-channel-id).")
    var channelID: String?

    @Option(name: .customLong("apns-topic"), help: "apns-topic (the bundle id). Default: the certificate's bundle id.")
    var topic: String?

    @Option(name: .customLong("push-type"), help: "apns-push-type: alert, background, voip, … Default: alert.")
    var pushType = "alert"

    @Option(help: "apns-priority: 10, 5 or 1. Default: 10, or 5 for background pushes.")
    var priority: Int?

    @Option(help: "apns-expiration, UNIX seconds (0: deliver now or never).")
    var expiration: Int64?

    @Option(name: .customLong("collapse-id"), help: "apns-collapse-id.")
    var collapseID: String?

    @Option(name: .customLong("apns-id"), help: "apns-id (a UUID). Default: APNs assigns one.")
    var apnsID: String?

    @Option(help: "The payload, inline JSON.")
    var payload: String?

    @Option(name: .customLong("payload-file"), help: "The payload, from a JSON file.")
    var payloadFile: String?

    @OptionGroup var credentials: Credentials

    @Option(help: "A JSON file with credential and destination settings (snake_case names).")
    var config: String?

    @Option(help: "production or sandbox. Default: production.")
    var environment: String?

    @Option(help: "Any host speaking APNs (the mock). Default: Apple's host for the environment.")
    var host: String?

    @Option(help: "443 or 2197 for Apple; any port for the mock. Default: 443.")
    var port: Int?

    @OptionGroup var transport: ChannelsTransportFlags

    struct Credentials: ParsableArguments {
        @Option(name: .customLong("key-file"), help: "Token auth: the .p8 signing key.")
        var keyFile: String?
        @Option(name: .customLong("key-id"), help: "Token auth: the key id. Default: from AuthKey_<KEYID>.p8.")
        var keyID: String?
        @Option(name: .customLong("team-id"), help: "Token auth: the team id.")
        var teamID: String?
        @Option(name: .customLong("cert-file"), help: "Certificate auth: the PEM certificate (chain).")
        var certFile: String?
        @Option(name: .customLong("cert-key-file"), help: "Certificate auth: the PEM private key.")
        var certKeyFile: String?
        @Option(name: .customLong("p12-file"), help: "Certificate auth: a PKCS#12 bundle.")
        var p12File: String?
        @Option(
            name: .customLong("password-file"),
            help: "Password of the PKCS#12 bundle or the PEM key, from this file (its final newline ignored).")
        var passwordFile: String?
        @Option(
            name: .customLong("password-env"),
            help: "Password of the PKCS#12 bundle or the PEM key, from this environment variable.")
        var passwordEnv: String?
    }

    /// `--config`: the same settings as the flags, in snake_case. A password only by reference
    /// (`password_file`, `password_env`): `password` itself is refused.
    struct ConfigFile: Decodable {
        var keyFile, keyID, teamID, certFile, certKeyFile, p12File, passwordFile, passwordEnv: String?
        var topic, environment, host, caFile: String?
        var port: Int?

        enum CodingKeys: String, CodingKey {
            case keyFile = "key_file"
            case keyID = "key_id"
            case teamID = "team_id"
            case certFile = "cert_file"
            case certKeyFile = "cert_key_file"
            case p12File = "p12_file"
            case passwordFile = "password_file"
            case passwordEnv = "password_env"
            case password, topic, environment, host
            case caFile = "ca_file"
            case port
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            guard !container.contains(.password) else {
                throw CommandFailure(
                    "--config: password is not accepted in a file; use password_file or password_env",
                    exit: .configuration)
            }
            func text(_ key: CodingKeys) throws -> String? { try container.decodeIfPresent(String.self, forKey: key) }
            (keyFile, keyID, teamID) = (try text(.keyFile), try text(.keyID), try text(.teamID))
            (certFile, certKeyFile, p12File) = (try text(.certFile), try text(.certKeyFile), try text(.p12File))
            (passwordFile, passwordEnv) = (try text(.passwordFile), try text(.passwordEnv))
            (topic, environment, host, caFile) = (
                try text(.topic), try text(.environment), try text(.host), try text(.caFile)
            )
            port = try container.decodeIfPresent(Int.self, forKey: .port)
        }
    }

    /// The `--config` file; an unreadable or malformed one is a configuration error (exit 78).
    private static func configFile(_ path: String) throws -> ConfigFile {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8)
        else {
            throw CommandFailure("--config: cannot read \(path)", exit: .configuration)
        }
        do {
            return try YAMLDecoder().decode(ConfigFile.self, from: text)
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            throw CommandFailure("--config \(path): not the YAML send expects: \(error)", exit: .configuration)
        }
    }

    /// Usage errors for the numeric flags, before anything is read or sent.
    func validate() throws {
        if let port = self.port { try Self.checkPort(port, source: "--port") }
        if let priority = self.priority, APNsPriority(rawValue: priority) == nil {
            throw ValidationError("--priority must be 10, 5 or 1, got \(priority)")
        }
        if let expiration = self.expiration, expiration < 0 {
            throw ValidationError("--expiration must be UNIX seconds ≥ 0, got \(expiration)")
        }
    }

    private static func checkPort(_ port: Int, source: String) throws {
        guard (1...65_535).contains(port) else {
            throw ValidationError("\(source) must be within 1…65535, got \(port)")
        }
    }

    func run() async throws {
        let file = try self.config.map(Self.configFile)
        let credential = try self.credential(file)
        let environment = try self.destination(file)
        guard (self.deviceToken == nil) != (self.channelID == nil) else {
            throw ValidationError("give --device-token or --channel-id (a broadcast), exactly one")
        }
        if let channelID = self.channelID {
            try await self.broadcast(channelID: channelID, credential: credential, environment: environment, file: file)
            return
        }
        let request = try self.request(credential: credential, topic: self.topic ?? file?.topic)

        let configuration = try self.connectionConfiguration(file)

        let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
        let response: APNsResponse
        do {
            let connection = try await APNsConnection.connect(
                to: environment, credential: credential, configuration: configuration, eventLoop: eventLoop,
                logger: Logger(label: "salvo.send"))
            let answer: Result<APNsResponse, APNsError>
            do {
                answer = .success(try await connection.send(request))
            } catch {
                answer = .failure(error)
            }
            await connection.close()
            response = try answer.get()
        } catch {
            self.printFailure(error, environment: environment)
            throw CommandExit.status(of: error).exitCode
        }
        self.printAnswer(response, environment: environment)
        if !response.isAccepted { throw CommandExit.refused.exitCode }
    }

    /// Timeouts from `--timeout`; h2c, or TLS trusting `--ca-file` (or the file's `ca_file`).
    func connectionConfiguration(_ file: ConfigFile?) throws -> APNsConnection.Configuration {
        try self.transport.applied(to: APNsConnection.Configuration(), caFile: file?.caFile)
    }

    func credential(_ file: ConfigFile?) throws -> APNsCredential {
        let fromFile = try file.map {
            ChannelsCredentialFlags(
                keyFile: $0.keyFile, keyID: $0.keyID, teamID: $0.teamID, certFile: $0.certFile,
                certKeyFile: $0.certKeyFile,
                p12File: $0.p12File,
                password: try ChannelsCredentialFlags.password(file: $0.passwordFile, variable: $0.passwordEnv))
        }
        return try ChannelsCredentialFlags(self.credentials).over(fromFile).credential()
    }

    func destination(_ file: ConfigFile?) throws -> APNsEnvironment {
        let kind: APNsEnvironment.Kind
        switch self.environment ?? file?.environment ?? "production" {
        case "production": kind = .production
        case "sandbox", "development": kind = .sandbox
        case let other: throw ValidationError("unknown environment \"\(other)\": use production or sandbox")
        }
        let standard: APNsEnvironment = kind == .production ? .production : .sandbox
        let host = self.host ?? file?.host
        let port = self.port ?? file?.port
        if let port { try Self.checkPort(port, source: self.port == nil ? "port in --config" : "--port") }
        if host == nil, port == nil || port == standard.port { return standard }
        return .custom(host: host ?? standard.host, port: port ?? standard.port, behavesAs: kind)
    }

    private func request(credential: APNsCredential, topic: String?) throws -> APNsRequest {
        let payloadText = try self.payloadText(
            default: #"{"aps":{"alert":{"title":"salvo send","body":"Test notification"}}}"#)
        var topicText = topic
        if topicText == nil, case .certificate(let certificate) = credential { topicText = certificate.bundleID }
        guard let topicText else { throw ValidationError("--apns-topic is required with token authentication") }
        guard let pushType = APNsPushType(rawValue: self.pushType) else {
            throw ValidationError("unknown push type \"\(self.pushType)\"")
        }
        do {
            return try self.request(topic: topicText, pushType: pushType, payload: payloadText)
        } catch let error as APNsError {
            // A field APNs or HTTP/2 would refuse is the caller's mistake, not APNs's answer.
            throw ValidationError(error.message)
        }
    }

    /// `--payload` or `--payload-file`, else `default`.
    func payloadText(default text: String) throws -> String {
        switch (self.payload, self.payloadFile) {
        case (let inline?, nil): return inline
        case (nil, let path?): return try String(contentsOfFile: path, encoding: .utf8)
        case (nil, nil): return text
        default: throw ValidationError("give --payload or --payload-file, not both")
        }
    }

    private func request(
        topic topicText: String, pushType: APNsPushType, payload payloadText: String
    ) throws -> APNsRequest {
        try APNsRequest(
            token: DeviceToken(hex: self.deviceToken ?? ""),
            topic: APNsTopic(topicText),
            pushType: pushType,
            priority: try self.priority.map { value in
                guard let priority = APNsPriority(rawValue: value) else {
                    throw ValidationError("priority must be 10, 5 or 1")
                }
                return priority
            },
            expiration: try self.expiration.map { try APNsExpiration(secondsSince1970: $0) },
            collapseID: try self.collapseID.map { try APNsCollapseID($0) },
            apnsID: try self.apnsID.map { value in
                guard let id = APNsID(value) else { throw ValidationError("--apns-id must be a UUID") }
                return id
            },
            payload: ByteBuffer(string: payloadText)
        )
    }

    private func printAnswer(_ response: APNsResponse, environment: APNsEnvironment) {
        var fields: [(String, String)] = [
            ("environment", environment.description), ("status", String(response.status)),
        ]
        if let apnsID = response.apnsID { fields.append(("apns-id", apnsID.description)) }
        if let uniqueID = response.apnsUniqueID { fields.append(("apns-unique-id", uniqueID.description)) }
        if let reason = response.reason { fields.append(("reason", reason.string)) }
        if let timestamp = response.timestampMilliseconds { fields.append(("timestamp", String(timestamp))) }
        if !response.isAccepted, let policy = response.retryPolicy { fields.append(("retry", "\(policy)")) }
        self.emit(fields)
    }

    func printFailure(_ error: any Error, environment: APNsEnvironment) {
        var fields: [(String, String)] = [("environment", environment.description)]
        if let error = error as? APNsError {
            fields += [("error", error.code.description), ("message", error.message)]
            if let underlying = error.underlying, !error.message.contains(underlying) {
                fields.append(("cause", underlying))
            }
        } else {
            fields += [("error", "unexpected"), ("message", String(describing: error))]
        }
        self.emit(fields)
    }

    func emit(_ fields: [(String, String)]) {
        ChannelsAnswer.emit(fields, json: self.transport.json)
    }
}
