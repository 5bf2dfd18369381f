import Foundation

/// A long-running child (the worker, the mock APNs, nghttpd) that a test starts, signals and
/// always stops. For a command run to completion, see ``ExternalProcess``.
///
/// Output goes to files in a private directory, so a chatty child never blocks on a full pipe,
/// and a failing test can show the child's last words.
public final class BackgroundProcess: @unchecked Sendable {
    // @unchecked: `process` is only touched through Foundation's thread-safe Process API, and
    // the URLs are immutable.
    public let name: String
    private let process = Process()
    private let directory: URL
    public let stdoutURL: URL
    public let stderrURL: URL

    /// Started through a launcher (setpriv, strace): signals go to what it runs, its children.
    private let signalsChildren: Bool

    public init(
        name: String, executable: URL, arguments: [String], environment: [String: String] = [:],
        signalsChildren: Bool = false
    ) throws {
        self.name = name
        self.signalsChildren = signalsChildren
        directory = try ExternalProcess.temporaryDirectory()
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

    /// `salvo` with `arguments`; `launcher` (a command and its arguments, e.g. `setpriv … strace …`)
    /// runs it when given.
    public static func salvo(
        _ name: String, _ arguments: [String], environment: [String: String] = [:], launcher: [String] = []
    ) throws -> BackgroundProcess {
        let salvo = try ExternalProcess.salvoExecutable()
        guard let command = launcher.first else {
            return try BackgroundProcess(name: name, executable: salvo, arguments: arguments, environment: environment)
        }
        return try BackgroundProcess(
            name: name, executable: URL(fileURLWithPath: command),
            arguments: launcher.dropFirst() + [salvo.path] + arguments,
            environment: environment, signalsChildren: true)
    }

    public var isRunning: Bool { process.isRunning }
    public var stdout: String { (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? "" }
    public var stderr: String { (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "" }

    /// The process id (for `/proc/<pid>/status` in memory checks).
    public var processIdentifier: Int32 { process.processIdentifier }

    /// How many lines the child has written so far, to count what it writes from now on.
    public struct OutputMark {
        public var stdoutLines: Int
        public var stderrLines: Int
    }

    public func outputMark() -> OutputMark {
        OutputMark(stdoutLines: Self.lines(of: stdout).count, stderrLines: Self.lines(of: stderr).count)
    }

    /// The lines written to stdout and stderr since `mark` (stdout's first).
    public func outputLines(since mark: OutputMark) -> [Substring] {
        Array(Self.lines(of: stdout).dropFirst(mark.stdoutLines)) + Self.lines(of: stderr).dropFirst(mark.stderrLines)
    }

    private static func lines(of text: String) -> [Substring] {
        text.split(separator: "\n", omittingEmptySubsequences: true)
    }

    /// Signals the child (or, when a launcher started it, the processes the launcher runs: a
    /// tracer passes SIGTERM on only by detaching, which would leave the traced process running).
    public func signal(_ signal: Int32) {
        guard process.isRunning else { return }
        guard signalsChildren else {
            kill(process.processIdentifier, signal)
            return
        }
        let pid = process.processIdentifier
        let children = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
        for child in children.split(separator: " ").compactMap({
            Int32($0.trimmingCharacters(in: .whitespacesAndNewlines))
        }) {
            kill(child, signal)
        }
        if signal == SIGKILL { kill(pid, signal) }
    }

    /// Waits for the child to exit on its own; nil if it is still running after `timeout`.
    public func waitForExit(timeout: Duration) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            guard ContinuousClock.now < deadline else { return nil }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return process.terminationStatus
    }

    /// Polls stdout until a line contains `text`; throws with the child's output if it exits or
    /// `timeout` passes first.
    public func waitForOutput(containing text: String, timeout: Duration = .seconds(30)) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let line = stdout.split(separator: "\n").first(where: { $0.contains(text) }) { return String(line) }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestFailure(
            "\(name) printed no line containing \"\(text)\"\nstdout:\n\(stdout.suffix(2_000))\nstderr:\n\(stderr.suffix(4_000))"
        )
    }

    /// SIGTERM, then SIGKILL if it lingers; removes the output files.
    public func stop() async {
        signal(SIGTERM)
        if await waitForExit(timeout: .seconds(10)) == nil {
            signal(SIGKILL)
            _ = await waitForExit(timeout: .seconds(5))
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// SIGKILL at once and wait for the exit, then remove the output files: for a child that
    /// ignores SIGTERM (nghttpd), and usable from a synchronous `defer`.
    public func killAndWait() {
        signal(SIGKILL)
        if process.isRunning { process.waitUntilExit() }
        try? FileManager.default.removeItem(at: directory)
    }
}
