import ArgumentParser
import SalvoAPNs
import SalvoKafka
import SalvoLoadTest
import SalvoWorker

/// The exit statuses of every salvo command, one table for all of them (docs/cli.md, and the end of
/// `salvo --help`): the two outcomes a script branches on keep 1 and 2, failures take their
/// sysexits(3) code.
enum CommandExit: Int32, CaseIterable, Sendable {
    /// Done.
    case success = 0
    /// APNs (or the channel-management API) answered and refused.
    case refused = 1
    /// A load test ran to its end and missed its expectations or objectives.
    case objectivesMissed = 2
    /// EX_USAGE: a flag missing, unknown or out of range (ArgumentParser's own code).
    case usage = 64
    /// EX_DATAERR: the input is wrong: a malformed NDJSON line, an unreadable input file, a job or
    /// payload the command refuses.
    case data = 65
    /// EX_UNAVAILABLE: a broker, APNs or the mock cannot be reached or did not answer in time.
    case unavailable = 69
    /// EX_SOFTWARE: salvo's own fault, or a failure of no other class.
    case software = 70
    /// EX_CONFIG: a configuration is missing or wrong: a `--kafka-config` or worker file, a key or
    /// secret file, a topic that does not exist, credentials the cluster refuses.
    case configuration = 78

    /// The name docs/cli.md gives the status.
    var name: String {
        switch self {
        case .success: "success"
        case .refused: "refused"
        case .objectivesMissed: "objectives missed"
        case .usage: "usage (EX_USAGE)"
        case .data: "data (EX_DATAERR)"
        case .unavailable: "unavailable (EX_UNAVAILABLE)"
        case .software: "software (EX_SOFTWARE)"
        case .configuration: "config (EX_CONFIG)"
        }
    }

    var exitCode: ExitCode { ExitCode(rawValue) }

    /// `  78  config (EX_CONFIG)` lines for `salvo --help`.
    static var helpTable: String {
        allCases.map { exit in
            let code = String(exit.rawValue)
            return "  " + code + String(repeating: " ", count: 4 - code.count) + exit.name
        }.joined(separator: "\n")
    }

    /// The status of an error a command threw, or nil for ArgumentParser's own errors and
    /// ``ExitCode``, whose status ArgumentParser knows (a usage error exits 64).
    static func status(of error: any Error) -> CommandExit? {
        switch error {
        case let failure as CommandFailure: failure.exit
        case let error as SalvoWorkerError: error.code == .finalCommitFailed ? .unavailable : .configuration
        // `as CommandExit` picks the overload for the type; without it this function calls itself.
        case let error as KafkaError: status(of: error) as CommandExit
        case let error as APNsError: status(of: error) as CommandExit
        case let error as LoadTestError: status(of: error) as CommandExit
        case is ExitCode, is ValidationError, is CleanExit: nil
        default: String(reflecting: type(of: error)).hasPrefix("ArgumentParser.") ? nil : .software
        }
    }

    /// The words of a library error without its type and source location (those are for logs):
    /// nil for every other error, which prints as it describes itself.
    static func message(of error: any Error) -> String? {
        switch error {
        case let error as SalvoWorkerError: error.message
        case let error as KafkaError: error.message
        case let error as APNsError: error.message
        default: nil
        }
    }

    static func status(of error: KafkaError) -> CommandExit {
        switch error.code {
        case .configuration, .unknownTopic, .unauthorized, .authenticationFailed: .configuration
        case .messageRejected: .data
        default: .unavailable
        }
    }

    static func status(of error: APNsError) -> CommandExit {
        switch error.code {
        case .invalidCredential, .credentialUnreadable, .invalidConfiguration: .configuration
        case .rejected: .refused
        case .notSent, .connectionFailed, .timedOut, .connectionLost, .streamProtocolError: .unavailable
        case .signingFailed: .software
        default: .data
        }
    }

    static func status(of error: LoadTestError) -> CommandExit {
        switch error.code {
        case .invalidScenario, .file: .configuration
        case .kafka, .observation: .unavailable
        case .tokenSearchExhausted: .data
        default: .software
        }
    }
}
