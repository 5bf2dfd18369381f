import Foundation
import Synchronization

/// Runs an independent client (curl, h2load) or `salvo` itself as a child process, with a time
/// bound: a child still running at the deadline is killed and the test fails.
///
/// Pipes are read on threads of their own, never on Swift's cooperative pool: a blocking read
/// there would starve the other tests running in parallel (the pool has one thread per core).
struct ExternalProcess {
    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    struct TimedOut: Error, CustomStringConvertible {
        var command: String
        var description: String { "\(self.command) did not finish in time" }
    }

    /// Runs `executable` with `arguments` to completion.
    static func run(_ executable: String, _ arguments: [String], timeoutSeconds: Double = 30) async throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let stdout = PipeReader()
        let stderr = PipeReader()
        process.standardOutput = stdout.pipe
        process.standardError = stderr.pipe
        try process.run()
        stdout.start()
        stderr.start()
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while process.isRunning {
            if Date() > deadline {
                process.terminate()
                throw TimedOut(command: ([executable] + arguments).joined(separator: " "))
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return Output(
            status: process.terminationStatus, stdout: await stdout.finished(), stderr: await stderr.finished())
    }
}

/// Drains one pipe on a dedicated thread; the text so far is readable at any time.
final class PipeReader: Sendable {
    let pipe = Pipe()
    private let state = Mutex<(text: [UInt8], done: Bool)>(([], false))

    func start() {
        let handle = self.pipe.fileHandleForReading
        Thread.detachNewThread {
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                self.state.withLock { $0.text.append(contentsOf: data) }
            }
            self.state.withLock { $0.done = true }
        }
    }

    var text: String { self.state.withLock { String(decoding: $0.text, as: UTF8.self) } }

    /// The whole output once the writer closed the pipe (bounded: 10 s).
    func finished() async -> String {
        for _ in 0..<1000 where !self.state.withLock({ $0.done }) {
            try? await Task.sleep(for: .milliseconds(10))
        }
        return self.text
    }
}
