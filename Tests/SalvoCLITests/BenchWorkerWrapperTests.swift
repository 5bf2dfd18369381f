import Foundation
import SalvoTestSupport
import Testing

/// `salvo bench worker --worker-wrapper`: the worker child runs under the given command prefix
/// (the instruction gate puts callgrind there), is stopped once the mock accepted everything, and
/// must exit cleanly for the wrapper to write its output. A shell script stands in for valgrind:
/// it records that it ran and what it was asked to run, then execs it.
@Suite struct BenchWorkerWrapperTests {
    @Test func workerRunsUnderTheWrapperAndExitsCleanly() async throws {
        let cluster = try CLITestCluster()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "salvo-bench-wrapper-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let marker = directory.appendingPathComponent("ran.txt").path
        let script = directory.appendingPathComponent("wrap.sh").path
        try "#!/bin/sh\necho \"$@\" > \(marker)\nexec \"$@\"\n".write(toFile: script, atomically: true, encoding: .utf8)
        let salvo = try ExternalProcess.salvoExecutable().path

        let run = try await CommandRunner.salvo(
            [
                "bench", "worker", "--brokers", cluster.brokers, "--mode", "per-user", "--per-user-notifications",
                "200",
                "--worker-executable", salvo, "--worker-wrapper", "sh \(script)", "--timeout", "90s",
            ],
            timeout: .seconds(150))

        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.stdoutText.contains("worker per-user (1 job → 1 token):"), "\(run.stdoutText)")
        let recorded = try String(contentsOfFile: marker, encoding: .utf8)
        #expect(recorded.hasPrefix("\(salvo) worker --config "), "\(recorded)")
    }

    @Test func benchLatencyRefusesAnEmptyPerUserPhase() async throws {
        let run = try await CommandRunner.salvo([
            "bench", "latency", "--brokers", "127.0.0.1:1", "--per-user-rate", "0",
        ])
        #expect(run.status != 0)
        #expect(run.stderr.contains("--per-user-rate ≥ 1"), "stderr: \(run.stderr)")
    }
}
