import Foundation
import SalvoKafka
import SalvoPrimitives
import Testing

@testable import SalvoWorker

/// Every numeric key of the worker's YAML has a range (`ConfigurationBounds`): the loader — what
/// `--check-config` runs — refuses absurd values with one line naming the key as the file wrote it
/// and the range, and accepts both ends of every range.
@Suite("Configuration bounds")
struct ConfigurationBoundsTests {
    /// One numeric key, placed into the minimal fixture file by its template (`$V` is the value).
    struct Key: CustomTestStringConvertible, Sendable {
        /// As refusals name it.
        var path: String
        /// As refusals print it: `1…1000`, `100ms…10m`.
        var range: String
        var lowest: String
        var highest: String
        var refused: [String]
        /// A line under the app `news`, or a top-level line.
        var app: String?
        var top: String?
        /// A line under `kafka:`.
        var kafka: String?
        var testDescription: String { path }

        func yaml(_ value: String, in fixture: ConfigurationFixture) -> String {
            fixture.minimalYAML(
                app: app.map { "    " + $0.replacingOccurrences(of: "$V", with: value) } ?? "",
                top: top?.replacingOccurrences(of: "$V", with: value) ?? "",
                kafka: kafka?.replacingOccurrences(of: "$V", with: value) ?? "")
        }

        /// Every integer key refuses both 64-bit extremes, -1, the neighbours of its range and,
        /// when the range is known while decoding, a number past 64 bits.
        static func integer(
            _ path: String, _ range: ClosedRange<Int>, app: String? = nil, top: String? = nil, kafka: String? = nil,
            rangeKnownWhileDecoding: Bool = true
        ) -> Key {
            var refused = ["9223372036854775807", "-9223372036854775808", "-1", String(range.upperBound + 1)]
            if range.lowerBound > 0 { refused.append(String(range.lowerBound - 1)) }
            if rangeKnownWhileDecoding { refused.append("99999999999999999999") }
            return Key(
                path: path, range: "\(range.lowerBound)…\(range.upperBound)", lowest: String(range.lowerBound),
                highest: String(range.upperBound), refused: refused, app: app, top: top, kafka: kafka)
        }

        /// Every number key refuses 1e300, negatives, NaN and infinities, plus `outside`.
        static func number(
            _ path: String, _ lowest: String, _ highest: String, outside: [String], app: String? = nil,
            top: String? = nil
        ) -> Key {
            Key(
                path: path, range: "\(lowest)…\(highest)", lowest: lowest, highest: highest,
                refused: ["1e300", "-1", ".nan", ".inf", "-.inf"] + outside, app: app, top: top)
        }

        /// Every duration key refuses 10^12 s, a number of hours past any 64-bit count of
        /// nanoseconds, a negative and a bare number, plus 1 ns past each end of its range.
        static func duration(
            _ path: String, _ lowest: String, _ highest: String, app: String? = nil, top: String? = nil,
            kafka: String? = nil
        ) -> Key {
            let low = ConfigurationDuration.parse(lowest)?.nanoseconds ?? 0
            let high = ConfigurationDuration.parse(highest)?.nanoseconds ?? 0
            var refused = ["1000000000000s", "99999999999999999999999h", "-1s", "30", "\(high + 1)ns"]
            if low > 0 { refused += ["0s", "\(low - 1)ns"] }
            return Key(
                path: path, range: "\(lowest)…\(highest)", lowest: lowest, highest: highest, refused: refused, app: app,
                top: top,
                kafka: kafka)
        }
    }

    static let keys: [Key] = [
        .duration("kafka.commit_interval", "10ms", "1m", kafka: "commit_interval: $V"),
        .duration("kafka.checkpoint_interval", "10ms", "1m", kafka: "checkpoint_interval: $V"),
        .integer("kafka.checkpoint_notifications", 10...1_000_000, kafka: "checkpoint_notifications: $V"),
        .integer("kafka.max_unconfirmed_sends", 1...100_000_000, kafka: "max_unconfirmed_sends: $V"),
        .duration("kafka.revoke_wait", "0s", "1m", kafka: "revoke_wait: $V"),
        .integer("kafka.max_uncommitted_notifications", 100...10_000_000, kafka: "max_uncommitted_notifications: $V"),
        .integer("apps.news.pool.connections", 1...64, app: "pool: {connections: $V}"),
        .integer("apps.news.pool.max_streams", 1...1_000, app: "pool: {max_streams: $V}"),
        .duration("apps.news.pool.connect_timeout", "100ms", "10m", app: "pool: {connect_timeout: $V}"),
        .duration("apps.news.pool.request_timeout", "100ms", "1h", app: "pool: {request_timeout: $V}"),
        .duration("apps.news.pool.keepalive_interval", "1s", "1h", app: "pool: {keepalive_interval: $V}"),
        .duration("apps.news.pool.keepalive_timeout", "100ms", "10m", app: "pool: {keepalive_timeout: $V}"),
        .integer(
            "apps.news.environments[0].port", 1...65_535, app: "environments: [{host: 127.0.0.1, port: $V, h2c: true}]"),
        .number(
            "apps.news.rate_limit.per_second", "0.001", "10000000", outside: ["0", "0.0009", "10000001"],
            app: "rate_limit: {per_second: $V}"),
        .integer("apps.news.rate_limit.burst", 1...1_000_000, app: "rate_limit: {per_second: 10, burst: $V}"),
        .integer("lanes.priority_weight", 1...1_000, top: "lanes: {priority_weight: $V}"),
        .integer("lanes.campaign_weight", 1...1_000, top: "lanes: {campaign_weight: $V}"),
        .integer("lanes.capacity_per_lane", 1...10_000_000, top: "lanes: {capacity_per_lane: $V}"),
        .duration("lanes.queue_delay_target", "0s", "1s", top: "lanes: {queue_delay_target: $V}"),
        .duration("retry.backoff.initial", "1ms", "1h", top: "retry: {backoff: {initial: $V, max: 24h}}"),
        .duration("retry.backoff.max", "1ms", "24h", top: "retry: {backoff: {initial: 1ms, max: $V}}"),
        .number(
            "retry.backoff.multiplier", "1", "10", outside: ["0", "0.999", "10.001"],
            top: "retry: {backoff: {multiplier: $V}}"),
        .duration(
            "retry.too_many_requests.initial", "1ms", "1h", top: "retry: {too_many_requests: {initial: $V, max: 24h}}"),
        .duration(
            "retry.too_many_requests.max", "1ms", "24h", top: "retry: {too_many_requests: {initial: 1ms, max: $V}}"),
        .number(
            "retry.too_many_requests.multiplier", "1", "10", outside: ["0", "0.999", "10.001"],
            top: "retry: {too_many_requests: {multiplier: $V}}"),
        .duration("retry.batch_window", "1ms", "1m", top: "retry: {batch_window: $V}"),
        .integer("retry.max_held", 0...1_000_000, top: "retry: {max_held: $V}"),
        .duration("retry.max_held_delay", "0s", "24h", top: "retry: {max_held_delay: $V}"),
        .integer("outcomes.max_attempts", 1...1_000, top: "outcomes: {max_attempts: $V}"),
        .integer("outcomes.max_replays", 0...100, top: "outcomes: {max_replays: $V}"),
        .number(
            "health.failure_share", "0.01", "1", outside: ["0", "0.009", "1.001"], top: "health: {failure_share: $V}"),
        .integer("health.minimum_samples", 1...1_000_000, top: "health: {minimum_samples: $V}"),
        .duration("health.sample_window", "100ms", "1h", top: "health: {sample_window: $V}"),
        .integer("health.probe_requests", 1...1_000, top: "health: {probe_requests: $V}"),
        .duration(
            "health.initial_probe_delay", "10ms", "1h", top: "health: {initial_probe_delay: $V, max_probe_delay: 1h}"),
        .duration(
            "health.max_probe_delay", "10ms", "1h", top: "health: {initial_probe_delay: 10ms, max_probe_delay: $V}"),
        .number(
            "device_rate_limit.per_second", "0.001", "10000000", outside: ["0", "0.0009", "10000001"],
            top: "device_rate_limit: {per_second: $V}"),
        .integer("device_rate_limit.burst", 1...1_000_000, top: "device_rate_limit: {per_second: 10, burst: $V}"),
        // Its range depends on the producer's `message.max.bytes` (ConfigurationJobBytesTests).
        .integer(
            "limits.max_job_bytes", 1...983_616, top: "limits: {max_job_bytes: $V}", rangeKnownWhileDecoding: false),
        .integer("limits.max_tokens", 1...10_000_000, top: "limits: {max_tokens: $V}"),
        .duration("drain_deadline", "1s", "1h", top: "drain_deadline: $V"),
    ]

    @Test("absurd values are refused in one line naming the YAML key and the range", arguments: keys)
    func absurdValueRefused(_ key: Key) throws {
        let fixture = try ConfigurationFixture()
        defer { fixture.remove() }
        for value in key.refused {
            let message = try Self.refusal(key.yaml(value, in: fixture))
            #expect(message.hasPrefix("test.yaml: \(key.path): "), "\(value): \(message)")
            #expect(message.contains(key.range), "\(value): \(message) should state the range \(key.range)")
            Self.expectOneLineWithoutSwiftNames(message)
        }
    }

    @Test("both ends of each range are accepted", arguments: keys)
    func boundsAccepted(_ key: Key) throws {
        let fixture = try ConfigurationFixture()
        defer { fixture.remove() }
        for value in [key.lowest, key.highest] {
            #expect(throws: Never.self, "\(key.path): \(value)") { try Self.load(key.yaml(value, in: fixture)) }
        }
    }

    @Test("the values that crashed the worker or lifted a memory bound are refused")
    func formerCrashesRefused() throws {
        let fixture = try ConfigurationFixture()
        defer { fixture.remove() }
        let demo = fixture.minimalYAML(app: "    pool: {max_streams: 4611686018427387904}")
            .replacingOccurrences(of: "  news:", with: "  demo:")
        #expect(
            try Self.refusal(demo)
                == "test.yaml: apps.demo.pool.max_streams: 4611686018427387904 is out of range 1…1000")
        for (top, expected) in [
            (
                "lanes: {capacity_per_lane: 9223372036854775807}",
                "lanes.capacity_per_lane: 9223372036854775807 is out of range 1…10000000"
            ),
            ("retry: {max_held: 9223372036854775807}", "retry.max_held: 9223372036854775807 is out of range 0…1000000"),
            ("drain_deadline: 1000000000000s", "drain_deadline: 1000000000000s is out of range 1s…1h"),
            ("retry: {backoff: {max: 8760h}}", "retry.backoff.max: 8760h is out of range 1ms…24h"),
        ] {
            #expect(try Self.refusal(fixture.minimalYAML(top: top)) == "test.yaml: \(expected)")
        }
        let error = #expect(throws: SalvoWorkerError.self) {
            try WorkerConfigurationLoader(environment: ["SALVO_DRAIN_DEADLINE": "1000000h"]).load(
                yaml: fixture.minimalYAML(), source: "test.yaml")
        }
        #expect(error?.message == "test.yaml: environment SALVO_DRAIN_DEADLINE: 1000000h is out of range 1s…1h")
    }

    @Test("the dispatch window at every upper bound (apps × environments × connections × streams) cannot overflow")
    func windowCannotOverflow() {
        var product = ConfigurationBounds.apps.upperBound
        for factor in [2, ConfigurationBounds.connections.upperBound, ConfigurationBounds.maximumStreams.upperBound] {
            let (next, overflow) = product.multipliedReportingOverflow(by: factor)
            #expect(!overflow)
            product = next
        }
        #expect(product < 1 << 28)
    }

    @Test("more than 1000 apps are refused before any credential is read; 1000 load")
    func appCount() throws {
        let fixture = try ConfigurationFixture()
        defer { fixture.remove() }
        func file(apps count: Int) -> String {
            let apps = (0..<count).map {
                "  a\($0): {bundle_id: com.example.news, credential: {token: {key_file: \(fixture.p8Path), team_id: TEAM123456}}}"
            }
            return "kafka: {brokers: [\"k:9092\"]}\napps:\n" + apps.joined(separator: "\n")
        }
        #expect(
            try Self.refusal(file(apps: 1_001))
                == "test.yaml: apps: 1001 apps; the number of apps must be within 1…1000")
        #expect(try Self.load(file(apps: 1_000)).apps.count == 1_000)
    }

    @Test("the table covers every numeric key of the file; every other key is listed as not numeric")
    func everyNumericKeyIsBounded() {
        let numeric = Set(Self.keys.map { String($0.path.split(separator: ".").last ?? "") })
        let notNumeric: Set<String> = [
            "kafka", "brokers", "client_id", "assignment_strategy", "start_from", "properties", "properties_files",
            "consumer_properties",
            "producer_properties", "group_id", "topics",
            "jobs", "priority", "retry", "feedback", "dead_letter", "outcomes", "control", "campaigns", "progress",
            "apps", "bundle_id", "credential", "token",
            "key_file", "key_id", "team_id", "certificate", "pkcs12_file", "certificate_file", "password_env",
            "password_file",
            "environments", "host", "behaves_as", "ca_file", "h2c", "allow_plaintext", "tls_server_name",
            "default_environment", "pool", "rate_limit",
            "lanes", "backoff", "too_many_requests", "dlq_invalid_tokens", "health", "device_rate_limit", "limits",
            "operations",
            // `host:port`, its port checked by the listen-address rule (0…65535).
            "listen", "log_level", "log_format",
        ]
        let all = Set(ConfigurationDocumentationTests.keys)
        let unbounded = all.subtracting(notNumeric).subtracting(numeric)
        #expect(unbounded.isEmpty, "keys with no range in this table: \(unbounded.sorted())")
        #expect(numeric.subtracting(all).isEmpty)
    }

    @Test("docs/configuration.md states each key's range in its row", arguments: keys)
    func rangeDocumented(_ key: Key) throws {
        let text = try String(
            contentsOfFile: ConfigurationFixture.repositoryFile("docs/configuration.md"), encoding: .utf8)
        let name = key.path.replacingOccurrences(of: "apps.news.environments[0].", with: "…environments[].")
            .replacingOccurrences(of: "apps.news.", with: "apps.*.")
        let row = text.split(separator: "\n").first { $0.hasPrefix("| `\(name)`") }
        #expect(row?.contains(key.range) == true, "no row for \(name) stating \(key.range)")
    }

    static func load(_ yaml: String, environment: [String: String] = [:]) throws -> WorkerConfiguration {
        try WorkerConfigurationLoader(environment: environment).load(yaml: yaml, source: "test.yaml").configuration
    }

    /// The message of the error the load throws.
    static func refusal(_ yaml: String, environment: [String: String] = [:]) throws -> String {
        let error = #expect(throws: SalvoWorkerError.self) { try load(yaml, environment: environment) }
        return try #require(error).message
    }

    /// Refusals are one line and name YAML keys, never Swift properties (`maximumStreams`).
    static func expectOneLineWithoutSwiftNames(_ message: String) {
        #expect(!message.contains("\n"), "\(message)")
        #expect(message.firstMatch(of: #/[a-z][A-Z]/#) == nil, "names a Swift property: \(message)")
    }
}
