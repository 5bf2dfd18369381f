import Foundation
import SalvoKafka
import SalvoTestSupport
import Testing

@Suite struct EnqueueCommandTests {
    /// Writes `lines` joined by `\n` to a temporary file.
    func write(_ text: String) throws -> URL {
        let file = try ExternalProcess.temporaryDirectory().appendingPathComponent("input.ndjson")
        try Data(text.utf8).write(to: file)
        return file
    }

    @Test func linesArriveByteForByteWithKeysAndHeaders() async throws {
        try await withCLITestCluster { cluster in
            let topic = cluster.uniqueName("cli-enqueue")
            let big = #"{"app":"big","payload_raw":""# + String(repeating: "z", count: 100_000) + #""}"#
            let lines = [
                #"{"app":"com.example.news","token":"a1","payload":{"aps":{"alert":"héllo wörld 🎉"}}}"#,
                #"{"app":"日本語アプリ","token":"b2","payload":{"aps":{"alert":"\u00e9 escaped"}}}"#,
                "{ \"app\" : \"spaced\",\t\"tab\":true }",
                big,
            ]
            // An empty line and a CRLF terminator: skipped and stripped respectively.
            let file = try write(lines[0] + "\n\n" + lines[1] + "\r\n" + lines[2] + "\n" + lines[3] + "\n")
            let run = try await CommandRunner.salvo([
                "enqueue", "--brokers", cluster.brokers, "--topic", topic, "--key-field", "app",
                "--header", "source=cli-test", "--header", "campaign=c-42",
                "--create-topic", "--partitions", "1", file.path,
            ])
            #expect(run.status == 0, "stderr: \(run.stderr)")
            #expect(run.stdoutText.contains("enqueued 4 message(s)"))

            let read = try await cluster.read(topic, format: "%k\\t%h\\t%s\\n")
            #expect(read.status == 0, "kcat: \(read.stderr)")
            let keys = ["com.example.news", "日本語アプリ", "spaced", "big"]
            let expected = zip(keys, lines).map { "\($0)\tsource=cli-test,campaign=c-42\t\($1)\n" }.joined()
            #expect(read.stdout == Array(expected.utf8), "byte for byte")
            #expect(try await cluster.admin.topic(named: topic)?.partitionCount == 1, "--create-topic made it")
        }
    }

    @Test func malformedLineIsNamedAndNothingIsSent() async throws {
        try await withCLITestCluster { cluster in
            let topic = cluster.uniqueName("cli-malformed")
            let created = try await cluster.admin.createTopics([KafkaNewTopic(name: topic, partitions: 1)])
            #expect(created.first?.outcome == .created)
            let file = try write("{\"ok\":1}\n{\"ok\":2}\n{\"broken\": tru}\n{\"ok\":4}\n")
            let run = try await CommandRunner.salvo([
                "enqueue", "--brokers", cluster.brokers, "--topic", topic, file.path,
            ])
            #expect(run.status != 0)
            #expect(run.stderr.contains("line 3"), "stderr: \(run.stderr)")
            #expect(run.stderr.contains("nothing was sent"))
            let read = try await cluster.read(topic, format: "%s\\n")
            #expect(read.stdout.isEmpty, "no message of the bad file was sent")
        }
    }

    @Test func missingKeyFieldIsNamed() async throws {
        try await withCLITestCluster { cluster in
            let topic = cluster.uniqueName("cli-nokey")
            let file = try write("{\"app\":\"a\"}\n[1,2]\n")
            let run = try await CommandRunner.salvo([
                "enqueue", "--brokers", cluster.brokers, "--topic", topic, "--key-field", "app", "--create-topic",
                file.path,
            ])
            #expect(run.status != 0)
            #expect(run.stderr.contains("line 2"), "stderr: \(run.stderr)")
            #expect(run.stderr.contains("\"app\""))
        }
    }

    @Test func unreachableBrokerFailsWithinTheTimeout() async throws {
        let port = try ClosedPort.find()
        let file = try write("{\"ok\":1}\n")
        let run = try await CommandRunner.salvo([
            "enqueue", "--brokers", "127.0.0.1:\(port)", "--topic", "anything", "--timeout", "2s", file.path,
        ])
        #expect(run.status != 0)
        #expect(run.elapsed < .seconds(15), "bounded wait, took \(run.elapsed)")
        #expect(run.stderr.contains("cannot reach broker(s) 127.0.0.1:\(port)"), "stderr: \(run.stderr)")
        #expect(run.stderr.contains("Connection refused"), "librdkafka's reason is shown: \(run.stderr)")
    }

    @Test func unknownTopicIsRefusedAndNotAutoCreated() async throws {
        try await withCLITestCluster { cluster in
            let topic = cluster.uniqueName("cli-unknown")
            let file = try write("{\"ok\":1}\n")
            let run = try await CommandRunner.salvo([
                "enqueue", "--brokers", cluster.brokers, "--topic", topic, file.path,
            ])
            #expect(run.status != 0)
            #expect(run.stderr.contains("topic \(topic) does not exist"), "stderr: \(run.stderr)")
            #expect(run.stderr.contains("--create-topic"))
            #expect(try await cluster.admin.topic(named: topic) == nil, "checking did not create it")
        }
    }

    @Test func standardInputIsReadWhole() async throws {
        try await withCLITestCluster { cluster in
            let topic = cluster.uniqueName("cli-stdin")
            let count = 20_000
            let file = try write((0..<count).map { "{\"n\":\($0)}\n" }.joined())
            let run = try await CommandRunner.salvo(
                [
                    "enqueue", "--brokers", cluster.brokers, "--topic", topic, "--create-topic", "--partitions", "2",
                    "-",
                ],
                stdin: file
            )
            #expect(run.status == 0, "stderr: \(run.stderr)")
            #expect(run.stdoutText.contains("enqueued \(count) message(s)"))
            let read = try await cluster.read(topic, format: "%s\\n")
            let values = Set(read.stdoutText.split(separator: "\n").map(String.init))
            #expect(values == Set((0..<count).map { "{\"n\":\($0)}" }))
        }
    }
}
