import Foundation
import SalvoTestSupport
import Testing

/// Every command's failure classes exit with the status of one table (docs/cli.md): usage 64, data
/// 65, unavailable 69, config 78. None of these needs a broker: the unavailable ones point at a
/// closed loopback port.
@Suite("Exit statuses of every command")
struct CommandExitCodeTests {
    static let usage: Int32 = 64
    static let data: Int32 = 65
    static let unavailable: Int32 = 69
    static let configuration: Int32 = 78

    /// A scratch directory with `files`; removed by the caller.
    static func directory(_ files: [String: String] = [:]) throws -> URL {
        let directory = try ExternalProcess.temporaryDirectory()
        for (name, text) in files { try Data(text.utf8).write(to: directory.appendingPathComponent(name)) }
        return directory
    }

    @Test(
        "usage errors exit 64",
        arguments: [
            ["campaign", "cancel"], ["campaign", "status", "c", "--interval", "1ms", "--brokers", "b:1"],
            ["enqueue", "--brokers", "b:1"], ["send", "--device-token", "ab", "--timeout", "0"],
            ["channels", "list"], ["loadtest", "--brokers", "b:1"], ["demo", "--scale", "99"], ["worker"],
            ["topics", "create", "--brokers", "b:1", "--partitions", "0"], ["no-such-command"],
        ])
    func usage(arguments: [String]) async throws {
        let run = try await CommandRunner.salvo(arguments)
        #expect(run.status == Self.usage, "\(arguments): \(run.stderr)")
    }

    @Test(
        "a missing --kafka-config file exits 78 with one line naming it",
        arguments: [
            ["campaign", "cancel", "c"], ["campaign", "pause", "c"], ["campaign", "resume", "c"],
            ["campaign", "status", "c"], ["enqueue", "--topic", "t"], ["demo"], ["bench", "kafka"],
            ["bench", "worker"], ["bench", "latency"], ["topics", "create"], ["topics", "check"],
        ])
    func missingKafkaConfig(arguments: [String]) async throws {
        let path = "/nonexistent-\(UUID().uuidString)/kafka.yaml"
        let run = try await CommandRunner.salvo(arguments + ["--kafka-config", path])
        #expect(run.status == Self.configuration, "\(arguments): \(run.stderr)")
        #expect(run.stderr == "Error: \(path): cannot read the configuration file\n", "\(arguments)")
    }

    @Test("loadtest: a missing --kafka-config file exits 78")
    func loadTestMissingKafkaConfig() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = try await CommandRunner.salvo([
            "loadtest", "--scenario", "loadtest/scenarios/smoke.yaml", "--mock-admin", "http://127.0.0.1:1",
            "--report-dir", directory.path, "--kafka-config", directory.appendingPathComponent("none.yaml").path,
        ])
        #expect(run.status == Self.configuration, "\(run.stderr)")
    }

    @Test("a kafka config naming a missing secret file exits 78, naming the key and the file")
    func missingSecretFile() async throws {
        let directory = try Self.directory([
            "kafka.yaml": "kafka:\n  brokers: [127.0.0.1:1]\n  properties_files: {sasl.password: missing-password}\n"
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("kafka.yaml").path
        for arguments in [["enqueue", "--topic", "t"], ["campaign", "status", "c"], ["campaign", "cancel", "c"]] {
            let run = try await CommandRunner.salvo(arguments + ["--kafka-config", config])
            #expect(run.status == Self.configuration, "\(arguments): \(run.stderr)")
            #expect(
                run.stderr
                    == "Error: \(config): kafka.properties_files.sasl.password: cannot read \(directory.path)/missing-password\n"
            )
        }
    }

    @Test("configuration errors of the other commands exit 78")
    func otherConfigurationErrors() async throws {
        let directory = try Self.directory(["bad.yaml": "kafka: {brokers: [a:1]}\napps: {}\n"])
        defer { try? FileManager.default.removeItem(at: directory) }
        let missingKey = directory.appendingPathComponent("AuthKey_ABCDE12345.p8").path
        let runs: [[String]] = [
            ["send", "--device-token", String(repeating: "ab", count: 32), "--key-file", missingKey, "--team-id", "T"],
            ["channels", "list", "--app", "com.example.app", "--key-file", missingKey, "--team-id", "T"],
            [
                "send", "--device-token", "ab", "--p12-file", "x.p12", "--password-env",
                "SALVO_TEST_UNSET_\(UInt32.random(in: 0...UInt32.max))",
            ],
            ["worker", "--check-config", directory.appendingPathComponent("bad.yaml").path],
            ["worker", "--config", directory.appendingPathComponent("none.yaml").path],
            [
                "channels", "list", "--app", "main", "--worker-config",
                directory.appendingPathComponent("none.yaml").path,
            ],
            [
                "loadtest", "--scenario", directory.appendingPathComponent("none.yaml").path, "--mock-admin",
                "http://127.0.0.1:1", "--brokers", "127.0.0.1:1",
            ],
        ]
        for arguments in runs {
            let run = try await CommandRunner.salvo(arguments)
            #expect(run.status == Self.configuration, "\(arguments): \(run.stdoutText) \(run.stderr)")
        }
    }

    @Test("enqueue: a malformed NDJSON line exits 65 before any broker is asked")
    func malformedInput() async throws {
        let directory = try Self.directory(["jobs.ndjson": "{\"ok\":1}\n{\"broken\": tru}\n"])
        defer { try? FileManager.default.removeItem(at: directory) }
        let port = try ClosedPort.find()
        let run = try await CommandRunner.salvo([
            "enqueue", "--brokers", "127.0.0.1:\(port)", "--topic", "t",
            directory.appendingPathComponent("jobs.ndjson").path,
        ])
        #expect(run.status == Self.data, "\(run.stderr)")
        #expect(run.stderr.contains("line 2"), "\(run.stderr)")
    }

    @Test("a broker that cannot be reached exits 69, naming the broker")
    func unreachableBroker() async throws {
        let port = try ClosedPort.find()
        let broker = "127.0.0.1:\(port)"
        let directory = try Self.directory(["jobs.ndjson": "{\"ok\":1}\n"])
        defer { try? FileManager.default.removeItem(at: directory) }
        let runs: [[String]] = [
            [
                "enqueue", "--brokers", broker, "--topic", "t", "--timeout", "2s",
                directory.appendingPathComponent("jobs.ndjson").path,
            ],
            ["campaign", "status", "c", "--brokers", broker, "--timeout", "2s"],
            ["campaign", "cancel", "c", "--brokers", broker, "--timeout", "2s"],
            ["topics", "create", "--brokers", broker, "--timeout", "2s"],
            ["topics", "check", "--brokers", broker, "--timeout", "2s"],
        ]
        for arguments in runs {
            let run = try await CommandRunner.salvo(arguments)
            #expect(run.status == Self.unavailable, "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains(broker), "\(arguments): \(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count == 1, "\(arguments): \(run.stderr)")
        }
    }

    @Test("APNs or the mock out of reach exits 69 for send and channels")
    func unreachableAPNs() async throws {
        let directory = try ExternalProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let generated = try await CommandRunner.salvo(["mock-apns", "--generate-tls", directory.path])
        #expect(generated.status == 0, "\(generated.stderr)")
        let key = directory.appendingPathComponent("AuthKey_MOCKKEY001.p8").path
        let port = String(try ClosedPort.find())
        let credential = ["--key-file", key, "--team-id", "MOCKTEAM01", "--h2c", "--host", "127.0.0.1", "--port", port]
        for arguments in [
            [
                "send", "--device-token", String(repeating: "ab", count: 32), "--apns-topic", "com.example.salvo",
                "--timeout", "2s",
            ],
            ["channels", "list", "--app", "com.example.salvo", "--timeout", "2s"],
        ] {
            let run = try await CommandRunner.salvo(arguments + credential)
            #expect(run.status == Self.unavailable, "\(arguments): \(run.stdoutText) \(run.stderr)")
        }
    }
}
