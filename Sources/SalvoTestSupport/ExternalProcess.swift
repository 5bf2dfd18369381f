import Foundation

/// Runs a command to completion from a test — an independent peer (curl, h2load, kcat, promtool)
/// or the built `salvo` — with a hard time limit. For a child that keeps running while the test
/// works against it, see ``BackgroundProcess``.
///
/// Output goes to files in a private directory, never to a pipe: a chatty child cannot fill a
/// pipe and stall, and nothing blocks a thread of Swift's cooperative pool reading one.
public enum ExternalProcess {
    public struct Result: Sendable {
        public var status: Int32
        public var stdout: [UInt8]
        public var stderr: String
        public var elapsed: Duration

        public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    }

    /// Runs `executable`; a child still running after `timeout` gets SIGTERM (and the test sees
    /// its signal status, never a hang).
    public static func run(
        _ executable: URL, _ arguments: [String], stdin: URL? = nil, environment: [String: String]? = nil,
        timeout: Duration = .seconds(60)
    ) async throws -> Result {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let stdoutURL = directory.appendingPathComponent("stdout")
        let stderrURL = directory.appendingPathComponent("stderr")
        guard FileManager.default.createFile(atPath: stdoutURL.path, contents: nil),
            FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        else {
            throw TestFailure("cannot create output files in \(directory.path)")
        }
        let stdoutHandle = try FileHandle(forWritingTo: stdoutURL)
        let stderrHandle = try FileHandle(forWritingTo: stderrURL)
        defer {
            try? stdoutHandle.close()
            try? stderrHandle.close()
        }

        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.standardOutput = stdoutHandle
        process.standardError = stderrHandle
        process.standardInput = try stdin.map { try FileHandle(forReadingFrom: $0) } ?? FileHandle.nullDevice
        let start = ContinuousClock.now
        let watchdog = Task {
            try await Task.sleep(for: timeout)
            if process.isRunning { process.terminate() }
        }
        defer { watchdog.cancel() }
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { process in
                continuation.resume(returning: process.terminationStatus)
            }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        let elapsed = ContinuousClock.now - start
        let stdout = try Data(contentsOf: stdoutURL)
        let stderr = try String(contentsOf: stderrURL, encoding: .utf8)
        return Result(status: status, stdout: Array(stdout), stderr: stderr, elapsed: elapsed)
    }

    /// The same for an executable given by path (`/usr/bin/curl`).
    public static func run(
        _ path: String, _ arguments: [String], stdin: URL? = nil, environment: [String: String]? = nil,
        timeout: Duration = .seconds(60)
    ) async throws -> Result {
        try await run(URL(fileURLWithPath: path), arguments, stdin: stdin, environment: environment, timeout: timeout)
    }

    /// The `salvo` executable the tests run as a child process: `SALVO_TEST_EXECUTABLE` when set
    /// (`make test` sets it to the release build, the binary that ships, whose worker fleets also
    /// leave this 2-core machine's CPU to the broker and the mock), else the one built next to the
    /// test binary (`swift build --build-tests` builds both into the same products directory; a
    /// copied test binary wants a copied `salvo`).
    public static func salvoExecutable() throws -> URL {
        if let path = ProcessInfo.processInfo.environment["SALVO_TEST_EXECUTABLE"], !path.isEmpty {
            let salvo = URL(fileURLWithPath: path).standardizedFileURL
            guard FileManager.default.isExecutableFile(atPath: salvo.path) else {
                throw TestFailure("SALVO_TEST_EXECUTABLE=\(path) is not an executable file")
            }
            return salvo
        }
        let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var directory = testBinary.deletingLastPathComponent()
        // On some layouts the test binary sits inside a `.xctest` bundle directory.
        while directory.pathExtension == "xctest" || directory.lastPathComponent == "MacOS" {
            directory.deleteLastPathComponent()
        }
        let salvo = directory.appendingPathComponent("salvo")
        guard FileManager.default.isExecutableFile(atPath: salvo.path) else {
            throw TestFailure("no salvo executable at \(salvo.path): run `swift build --build-tests` first")
        }
        return salvo
    }

    /// A new, empty directory of the test's own under the system's temporary directory; the
    /// caller removes it.
    public static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("salvo-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }
}
