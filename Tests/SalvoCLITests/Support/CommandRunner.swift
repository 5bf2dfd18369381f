import Foundation
import Testing

/// Runs built executables as subprocesses, with output captured in files (no pipe can fill up
/// and stall the child) and a hard time limit.
enum CommandRunner {
    struct Result {
        var status: Int32
        var stdout: [UInt8]
        var stderr: String
        var elapsed: Duration

        var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    }

    /// The `salvo` executable built next to this test bundle (`swift build --build-tests`
    /// builds both into the same products directory).
    static func salvoExecutable() throws -> URL {
        let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var directory = testBinary.deletingLastPathComponent()
        // On some layouts the test binary sits inside a `.xctest` bundle directory.
        while directory.pathExtension == "xctest" || directory.lastPathComponent == "MacOS" {
            directory.deleteLastPathComponent()
        }
        let salvo = directory.appendingPathComponent("salvo")
        guard FileManager.default.isExecutableFile(atPath: salvo.path) else {
            throw CLITestError("no salvo executable at \(salvo.path): run `swift build --build-tests` first")
        }
        return salvo
    }

    static func salvo(_ arguments: [String], stdin: URL? = nil, timeout: Duration = .seconds(60)) async throws -> Result {
        try await run(salvoExecutable(), arguments, stdin: stdin, timeout: timeout)
    }

    /// kcat from PATH, with the environment of the test (LD_LIBRARY_PATH selects the librdkafka
    /// that can talk to the test broker).
    static func kcat(_ arguments: [String], timeout: Duration = .seconds(60)) async throws -> Result {
        try await run(URL(fileURLWithPath: "/usr/bin/kcat"), arguments, timeout: timeout)
    }

    static func run(_ executable: URL, _ arguments: [String], stdin: URL? = nil, timeout: Duration) async throws -> Result {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let stdoutURL = directory.appendingPathComponent("stdout")
        let stderrURL = directory.appendingPathComponent("stderr")
        guard FileManager.default.createFile(atPath: stdoutURL.path, contents: nil),
              FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        else {
            throw CLITestError("cannot create output files in \(directory.path)")
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

    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("salvo-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }
}

struct CLITestError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
