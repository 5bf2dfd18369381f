import SalvoTestSupport
import Testing

/// `salvo bench jobs` decodes the benchmark's job shapes (a rejected one fails the command), and
/// `bench worker` refuses a round count it cannot run, before starting anything.
@Suite struct BenchJobsCommandTests {
    @Test func decodesBothShapesAndReportsEachAgainstTheReference() async throws {
        let run = try await CommandRunner.salvo(["bench", "jobs", "--per-user-jobs", "200", "--campaign-jobs", "3"])
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let lines = run.stdoutText.split(separator: "\n")
        #expect(lines.count == 2, "\(run.stdoutText)")
        #expect(lines.first?.hasPrefix("jobs per-user (1 token): JobDecoder ") == true, "\(run.stdoutText)")
        #expect(lines.last?.hasPrefix("jobs campaign (1,000 tokens): JobDecoder ") == true, "\(run.stdoutText)")
        #expect(
            lines.allSatisfy { $0.contains("JSONSerialization") && $0.contains("decoder/reference") },
            "\(run.stdoutText)")
    }

    @Test func benchWorkerRejectsZeroRounds() async throws {
        let run = try await CommandRunner.salvo(["bench", "worker", "--brokers", "127.0.0.1:1", "--rounds", "0"])
        #expect(run.status != 0)
        #expect(run.stderr.contains("--rounds must be at least 1"), "stderr: \(run.stderr)")
    }
}
