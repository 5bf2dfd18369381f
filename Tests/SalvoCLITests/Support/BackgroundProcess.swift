import Foundation

/// A long-running child (the worker, the mock APNs) that a test starts, signals and always stops.
///
/// Output goes to files in a private directory, so a chatty child never blocks on a full pipe,
/// and a failing test can show the child's last words.
final class BackgroundProcess: @unchecked Sendable {
    // @unchecked: `process` is only touched through Foundation's thread-safe Process API, and
    // the URLs are immutable.
    let name: String
    private let process = Process()
    private let directory: URL
    let stdoutURL: URL
    let stderrURL: URL

    init(name: String, executable: URL, arguments: [String], environment: [String: String] = [:]) throws {
        self.name = name
        directory = try CommandRunner.temporaryDirectory()
        stdoutURL = directory.appendingPathComponent("stdout")
        stderrURL = directory.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: stdoutURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = try FileHandle(forWritingTo: stdoutURL)
        process.standardError = try FileHandle(forWritingTo: stderrURL)
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    static func salvo(_ name: String, _ arguments: [String], environment: [String: String] = [:]) throws -> BackgroundProcess {
        try BackgroundProcess(name: name, executable: CommandRunner.salvoExecutable(), arguments: arguments, environment: environment)
    }

    var isRunning: Bool { process.isRunning }
    var stdout: String { (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "" }

    func signal(_ signal: Int32) {
        if process.isRunning { kill(process.processIdentifier, signal) }
    }

    /// Waits for the child to exit on its own; nil if it is still running after `timeout`.
    func waitForExit(timeout: Duration) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            guard ContinuousClock.now < deadline else { return nil }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return process.terminationStatus
    }

    /// Polls stdout until a line contains `text`; throws with the child's output if it exits or
    /// `timeout` passes first.
    func waitForOutput(containing text: String, timeout: Duration = .seconds(30)) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let line = stdout.split(separator: "\n").first(where: { $0.contains(text) }) { return String(line) }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw CLITestError("\(name) printed no line containing \"\(text)\"\nstdout:\n\(stdout.suffix(2_000))\nstderr:\n\(stderr.suffix(4_000))")
    }

    /// SIGTERM, then SIGKILL if it lingers; removes the output files.
    func stop() async {
        signal(SIGTERM)
        if await waitForExit(timeout: .seconds(10)) == nil {
            signal(SIGKILL)
            _ = await waitForExit(timeout: .seconds(5))
        }
        try? FileManager.default.removeItem(at: directory)
    }
}
