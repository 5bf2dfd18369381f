import ArgumentParser
import SalvoWorker

/// The topic names `salvo topics create` and `salvo topics check` work on: `<prefix>.<role>`,
/// single ones overridden with `--topic role=name`.
struct TopicsOptions: ParsableArguments {
    typealias Role = WorkerTopicRequirement.Role

    @Option(help: "Topic name prefix.")
    var prefix: String = "salvo"

    @Option(
        name: .customLong("topic"),
        help: ArgumentHelp(
            "Override one name: role=name (repeatable; roles: \(Role.allCases.map(\.rawValue).joined(separator: ", "))).",
            valueName: "role=name"))
    var overrides: [String] = []

    @Option(help: "How long to wait for the cluster (e.g. 10s, 500ms).")
    var timeout: DurationArgument = .seconds(30)

    @Flag(help: "Show librdkafka's logs on stderr.")
    var verbose = false

    func validate() throws {
        _ = try requirements()
    }

    /// Every role's topic, after overrides, in creation order.
    func requirements() throws -> [WorkerTopicRequirement] {
        var names = Dictionary(uniqueKeysWithValues: Role.allCases.map { ($0, "\(prefix).\($0.suffix)") })
        for override in overrides {
            let parts = override.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, let role = Role(rawValue: parts[0]), !parts[1].isEmpty else {
                throw ValidationError(
                    "--topic expects role=name with a role of \(Role.allCases.map(\.rawValue).joined(separator: ", ")), got '\(override)'"
                )
            }
            names[role] = parts[1]
        }
        return Role.allCases.map { WorkerTopicRequirement(role: $0, name: names[$0] ?? "") }
    }
}

/// `--retention`: how long the delete-policy topics keep records, `12h`, `168h`, `30m`; at most a
/// year (8760h).
struct TopicRetention: ExpressibleByArgument, Sendable, CustomStringConvertible {
    var milliseconds: Int64
    private let text: String

    init?(argument: String) {
        let units: [(suffix: String, milliseconds: Double)] = [
            ("ms", 1), ("s", 1_000), ("m", 60_000), ("h", 3_600_000),
        ]
        for unit in units where argument.hasSuffix(unit.suffix) {
            let number = argument.dropLast(unit.suffix.count)
            // `5ms` ends in `s` too: only a plain number before the unit counts.
            guard let value = Double(number), number.allSatisfy({ $0.isNumber || $0 == "." }) else { continue }
            let total = value * unit.milliseconds
            guard total >= 60_000, total <= 8_760 * 3_600_000 else { return nil }
            milliseconds = Int64(total.rounded())
            text = argument
            return
        }
        return nil
    }

    var description: String { text }
}
