import Dispatch
import Foundation
import NIOCore
import NIOPosix

/// Debian's independent HTTP/2 peers (nghttpd, curl, h2load) started from tests, always bounded
/// in time and always stopped by the test that started them.
final class ExternalProcess: Sendable {
    private let process: Process

    /// Starts a long-running process (a server); call `stop()` in `defer`.
    init(_ path: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
    }

    /// SIGKILL: nghttpd ignores SIGTERM.
    func stop() {
        if self.process.isRunning {
            kill(self.process.processIdentifier, SIGKILL)
            self.process.waitUntilExit()
        }
    }

    /// Runs a command to completion (killed after `timeout`) and returns its exit status and
    /// standard output.
    static func run(_ path: String, _ arguments: [String], timeout: TimeAmount = .seconds(60)) async throws -> (
        status: Int32, output: String
    ) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(timeout.nanoseconds))) {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        let output = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                continuation.resume(returning: String(decoding: data, as: UTF8.self))
            }
        }
        return (process.terminationStatus, output)
    }

    /// A port that was free a moment ago: bound on 127.0.0.1 port 0, then released.
    static func freePort(group: any EventLoopGroup) async throws -> Int {
        let channel = try await ServerBootstrap(group: group).bind(host: "127.0.0.1", port: 0).get()
        let port = channel.localAddress?.port ?? 0
        try await channel.close()
        return port
    }

    /// Waits (at most ~5 s) until something accepts connections on `port`.
    static func waitUntilAccepting(port: Int, group: any EventLoopGroup) async throws {
        for _ in 0..<100 {
            if let channel = try? await ClientBootstrap(group: group).connect(host: "127.0.0.1", port: port).get() {
                try? await channel.close()
                return
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw HTTP2TestError("nothing accepted connections on port \(port)")
    }
}

struct HTTP2TestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
