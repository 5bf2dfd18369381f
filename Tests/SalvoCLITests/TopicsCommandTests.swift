import SalvoKafka
import SalvoTestSupport
import Testing

@Suite struct TopicsCommandTests {
    @Test func createsAllSixTopicsAndIsIdempotent() async throws {
        try await withCLITestCluster { cluster in
            let prefix = cluster.uniqueName("cli-topics")
            let names = ["jobs", "jobs.priority", "feedback", "retry", "dlq", "outcomes"].map { "\(prefix).\($0)" }
            cluster.adopt(names)
            let arguments = ["topics", "create", "--brokers", cluster.brokers, "--prefix", prefix, "--partitions", "2"]

            let first = try await CommandRunner.salvo(arguments)
            #expect(first.status == 0, "stderr: \(first.stderr)")
            for name in names {
                #expect(first.stdoutText.contains("created  \(name) "), "\(name) in: \(first.stdoutText)")
            }
            let topics = try await cluster.admin.topics()
            for name in names {
                #expect(topics.first { $0.name == name }?.partitionCount == 2, "\(name) exists with 2 partitions")
            }

            let second = try await CommandRunner.salvo(arguments)
            #expect(second.status == 0, "re-running is not an error: \(second.stderr)")
            for name in names {
                #expect(
                    second.stdoutText.contains("exists   \(name) (2 partitions)"), "\(name) in: \(second.stdoutText)")
            }
        }
    }

    @Test func namesCanBeOverridden() async throws {
        try await withCLITestCluster { cluster in
            let prefix = cluster.uniqueName("cli-override")
            let dlq = cluster.uniqueName("cli-custom-dlq")
            let names = ["jobs", "jobs.priority", "feedback", "retry", "outcomes"].map { "\(prefix).\($0)" }
            cluster.adopt(names)
            let run = try await CommandRunner.salvo([
                "topics", "create", "--brokers", cluster.brokers, "--prefix", prefix, "--topic", "dlq=\(dlq)",
            ])
            #expect(run.status == 0, "stderr: \(run.stderr)")
            #expect(run.stdoutText.contains("created  \(dlq) "))
            #expect(!run.stdoutText.contains("\(prefix).dlq"))
            #expect(try await cluster.admin.topic(named: dlq) != nil)
        }
    }

    @Test func unreachableBrokerIsAClearFailure() async throws {
        let port = try ClosedPort.find()
        let run = try await CommandRunner.salvo([
            "topics", "create", "--brokers", "127.0.0.1:\(port)", "--timeout", "2s",
        ])
        #expect(run.status != 0)
        #expect(run.elapsed < .seconds(15))
        #expect(run.stderr.contains("cannot reach broker(s)"), "stderr: \(run.stderr)")
    }

    @Test func badOverrideIsAUsageError() async throws {
        let run = try await CommandRunner.salvo(["topics", "create", "--brokers", "127.0.0.1:1", "--topic", "nonsense"])
        #expect(run.status != 0)
        #expect(run.stderr.contains("role=name"))
    }
}
