import Foundation
import Testing

@testable import SalvoWorker

/// Each kind of mistake gets one message naming the file, the key path and the rule.
@Suite("Worker configuration errors")
struct WorkerConfigurationErrorTests {
    struct Mistake: CustomTestStringConvertible, Sendable {
        var name: String
        /// The whole file; `$P8` is the fixture's valid .p8 path, `$DIR` its directory.
        var yaml: String
        var environment: [String: String] = [:]
        /// Every fragment must appear in the message.
        var expected: [String]
        var testDescription: String { name }
    }

    private static let app = """
        apps:
          news:
            bundle_id: com.example.news
            credential: {token: {key_file: $P8, team_id: TEAM123456}}
        """

    private static func file(
        _ kafka: String = "kafka: {brokers: [\"k:9092\"]}", app: String = app, _ rest: String = ""
    ) -> String {
        "\(kafka)\n\(app)\n\(rest)"
    }

    static let mistakes: [Mistake] = [
        Mistake(
            name: "unknown top-level key", yaml: file("kafka: {brokers: [\"k:9092\"]}", "lane: {priority_weight: 2}"),
            expected: ["test.yaml: lane:", "unknown key", "lanes"]),
        Mistake(
            name: "unknown nested key", yaml: file(app: app + "\n    pool: {conections: 4}"),
            expected: ["apps.news.pool.conections", "unknown key", "connections"]),
        Mistake(name: "missing required section", yaml: app, expected: ["kafka", "required key is missing"]),
        Mistake(
            name: "missing team id",
            yaml: file(app: "apps:\n  news:\n    bundle_id: a.b\n    credential: {token: {key_file: $P8}}"),
            expected: ["apps.news.credential.token.team_id", "required key is missing"]),
        Mistake(
            name: "wrong type", yaml: file(app: app + "\n    pool: {connections: many}"),
            expected: ["apps.news.pool.connections", "expected an integer"]),
        Mistake(
            name: "duration without unit", yaml: file(app: app + "\n    pool: {request_timeout: 30}"),
            expected: ["apps.news.pool.request_timeout", "\"30\" is not a duration", "500ms"]),
        Mistake(
            name: "bad environment override", yaml: file(), environment: ["SALVO_DRAIN_DEADLINE": "soon"],
            expected: ["environment SALVO_DRAIN_DEADLINE", "\"soon\" is not a duration"]),
        Mistake(
            name: "bad listen address", yaml: file(app: app, "operations: {listen: \"9100\"}"),
            expected: ["operations.listen", "not a listen address", "host:port"]),
        Mistake(
            name: "pool out of range", yaml: file(app: app + "\n    pool: {connections: 0}"),
            expected: ["apps.news.pool.connections: 0 is out of range 1…64"]),
        Mistake(
            name: "lane weight out of range", yaml: file(app: app, "lanes: {priority_weight: 0}"),
            expected: ["lanes.priority_weight: 0 is out of range 1…1000"]),
        Mistake(
            name: "retry backoff inverted", yaml: file(app: app, "retry: {backoff: {initial: 2m, max: 1s}}"),
            expected: ["retry.backoff.max: 1s is shorter than retry.backoff.initial 2m"]),
        Mistake(
            name: "topics not distinct", yaml: file(app: app, "topics: {feedback: salvo.jobs}"),
            expected: ["topics:", "topics must be distinct"]),
        Mistake(
            name: "token and certificate both given",
            yaml: file(
                app:
                    "apps:\n  news:\n    credential: {token: {key_file: $P8, team_id: TEAM123456}, certificate: {pkcs12_file: x.p12}}"
            ),
            expected: ["apps.news.credential", "exactly one of token"]),
        Mistake(
            name: "unreadable key file",
            yaml: file(
                app:
                    "apps:\n  news:\n    bundle_id: a.b\n    credential: {token: {key_file: $DIR/missing/AuthKey_ABCDE12345.p8, team_id: TEAM123456}}"
            ),
            expected: ["apps.news.credential.token", "cannot read credential file", "missing/AuthKey_ABCDE12345.p8"]),
        Mistake(
            name: "password variable not set",
            yaml: file(
                app:
                    "apps:\n  chat:\n    credential: {certificate: {pkcs12_file: $DIR/certs/chat.p12, password_env: CHAT_PASSWORD}}"
            ),
            expected: ["apps.chat.credential.certificate.password_env", "CHAT_PASSWORD is not set"]),
        Mistake(
            name: "wrong PKCS#12 password",
            yaml: file(
                app:
                    "apps:\n  chat:\n    credential: {certificate: {pkcs12_file: $DIR/certs/chat.p12, password_env: CHAT_PASSWORD}}"
            ),
            environment: ["CHAT_PASSWORD": "wrong"],
            expected: ["apps.chat.credential.certificate", "cannot open PKCS#12 bundle", "wrong password"]),
        Mistake(
            name: "bundle id differs from the certificate",
            yaml: file(
                app:
                    "apps:\n  chat:\n    bundle_id: com.example.other\n    credential: {certificate: {certificate_file: $DIR/certs/chat.pem, key_file: $DIR/certs/chat.key}}"
            ),
            expected: ["apps.chat.bundle_id", "differs from the certificate's bundle id \"com.example.chat\""]),
        Mistake(
            name: "token app without bundle id",
            yaml: file(app: "apps:\n  news:\n    credential: {token: {key_file: $P8, team_id: TEAM123456}}"),
            expected: ["apps.news.bundle_id", "required for a token credential"]),
        Mistake(
            name: "environment listed twice",
            yaml: file(app: app + "\n    environments: [production, {host: mock, port: 2197}]"),
            expected: ["apps.news.environments[1]", "a second endpoint for production"]),
        Mistake(
            name: "unknown environment name", yaml: file(app: app + "\n    environments: [staging]"),
            expected: ["apps.news.environments[0]", "\"staging\" is not an environment"]),
        Mistake(
            name: "default environment not listed", yaml: file(app: app + "\n    default_environment: sandbox"),
            expected: ["apps.news.default_environment", "sandbox is not one of the app's environments"]),
        Mistake(
            name: "mixed transports in one app",
            yaml: file(
                app: app + "\n    environments: [production, {host: mock, port: 2197, behaves_as: sandbox, h2c: true}]"),
            expected: ["apps.news.environments", "shares its pool's transport"]),
        Mistake(
            name: "h2c with a certificate",
            yaml: file(
                app:
                    "apps:\n  chat:\n    credential: {certificate: {certificate_file: $DIR/certs/chat.pem, key_file: $DIR/certs/chat.key}}\n    environments: [{host: mock, port: 2197, h2c: true}]"
            ),
            expected: ["apps.chat.environments[0].h2c", "h2c cannot present a client certificate"]),
        Mistake(
            name: "CA file without certificates",
            yaml: file(app: app + "\n    environments: [{host: mock, port: 2197, ca_file: $P8}]"),
            expected: ["apps.news.environments[0].ca_file", "AuthKey_ABCDE12345.p8"]),
        Mistake(
            name: "rate limit not a number", yaml: file(app: app + "\n    rate_limit: {per_second: .nan}"),
            expected: ["apps.news.rate_limit.per_second: nan is out of range 0.001…10000000"]),
        Mistake(
            name: "device rate limit negative", yaml: file(app: app, "device_rate_limit: {per_second: -5}"),
            expected: ["device_rate_limit.per_second: -5 is out of range 0.001…10000000"]),
        Mistake(
            name: "bad log level", yaml: file(app: app, "log_level: verbose"),
            expected: ["log_level", "\"verbose\" is not a log level", "debug"]),
        Mistake(name: "no apps", yaml: file(app: "apps: {}"), expected: ["apps", "at least one app"]),
        Mistake(name: "YAML syntax", yaml: "kafka: [unclosed", expected: ["test.yaml: not valid YAML", "1:"]),
    ]

    @Test("each mistake names the file, key path and rule", arguments: mistakes)
    func mistakeIsExplained(_ mistake: Mistake) throws {
        let fixture = try ConfigurationFixture()
        defer { fixture.remove() }
        let yaml = mistake.yaml.replacingOccurrences(of: "$P8", with: fixture.p8Path)
            .replacingOccurrences(of: "$DIR", with: fixture.directory)
        let error = #expect(throws: SalvoWorkerError.self) {
            try WorkerConfigurationLoader(environment: mistake.environment).load(yaml: yaml, source: "test.yaml")
        }
        let message = try #require(error).message
        #expect(message.hasPrefix("test.yaml: "), "\(message)")
        for fragment in mistake.expected {
            #expect(message.contains(fragment), "\(message) should contain \(fragment)")
        }
        #expect(error?.code == .invalidConfiguration)
    }

    @Test("a file that cannot be read is named")
    func unreadableFile() {
        let error = #expect(throws: SalvoWorkerError.self) {
            try WorkerConfigurationLoader(environment: [:]).load(path: "/nonexistent/salvo/worker.yaml")
        }
        #expect(error?.message == "/nonexistent/salvo/worker.yaml: cannot read the configuration file")
    }
}
