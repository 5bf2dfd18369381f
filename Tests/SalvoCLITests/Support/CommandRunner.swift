import Foundation
import SalvoTestSupport

/// The commands CLI tests run to completion most: `salvo` itself and kcat (through
/// ``ExternalProcess``, which bounds them in time and captures their output in files).
enum CommandRunner {
    static func salvo(
        _ arguments: [String], stdin: URL? = nil, timeout: Duration = .seconds(60)
    ) async throws
        -> ExternalProcess.Result
    {
        try await ExternalProcess.run(ExternalProcess.salvoExecutable(), arguments, stdin: stdin, timeout: timeout)
    }

    /// kcat from PATH, with the environment of the test (LD_LIBRARY_PATH selects the librdkafka
    /// that can talk to the test broker).
    static func kcat(_ arguments: [String], timeout: Duration = .seconds(60)) async throws -> ExternalProcess.Result {
        try await ExternalProcess.run(URL(fileURLWithPath: "/usr/bin/kcat"), arguments, timeout: timeout)
    }
}
