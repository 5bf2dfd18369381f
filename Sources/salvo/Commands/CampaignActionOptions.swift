import ArgumentParser
import Foundation
import Logging
import SalvoKafka
import SalvoWorker

/// The arguments of `salvo campaign cancel|pause|resume`, and giving the command: read the control
/// topic to its end (which also proves it exists, so producing cannot auto-create an uncompacted
/// topic), then write the command with a time after the campaign's current one, so time order and
/// log order agree for every reader (schema/control.schema.json).
struct CampaignActionOptions: ParsableArguments {
    @Argument(help: "The campaign_id of the jobs.")
    var campaignID: String

    @OptionGroup var kafka: KafkaConnectionOptions

    @Option(help: "Why (recorded with the command).")
    var reason: String = ""

    @Option(help: "Who gives the command. Default: $USER@host.")
    var by: String?

    @Option(name: .customLong("control-topic"), help: "The control topic (the worker's topics.control).")
    var topic: String = WorkerTopics().control

    @Flag(help: "Pause or resume a campaign that is cancelled (its jobs not yet dropped would send again).")
    var force = false

    @Option(help: "How long to wait for the cluster (e.g. 10s, 500ms).")
    var timeout: DurationArgument = .seconds(15)

    @Flag(help: "Show librdkafka's logs on stderr.")
    var verbose = false

    func validate() throws {
        guard (1...256).contains(campaignID.utf8.count),
            !campaignID.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw ValidationError("the campaign id must be 1–256 UTF-8 bytes without control characters, as in jobs")
        }
    }

    /// Who, when `--by` is not given: the login name and host, else "salvo-cli".
    private var giver: String {
        if let by, !by.isEmpty { return by }
        let environment = ProcessInfo.processInfo.environment
        let user = environment["USER"] ?? environment["LOGNAME"]
        return user.map { "\($0)@\(ProcessInfo.processInfo.hostName)" } ?? "salvo-cli"
    }

    func give(_ action: CampaignCommand.Action) async throws {
        let logger = CommandLogger.make(label: "salvo.campaign", verbose: verbose)
        let client = try kafka.client(clientID: "salvo-campaign", verbose: verbose)
        // Not idempotent, and started before the control topic is read: an idempotent producer
        // first asks for a producer id, which librdkafka retries every 500 ms until a broker is
        // up, and the record reached the log 0.5–1 s after its timestamp (kcat: 10–35 ms). The
        // clock of "in force within 1 s" starts at that timestamp. One compacted record needs no
        // idempotence: sent twice, it is the same command with the same time.
        var configuration = KafkaProducerConfiguration(client: client)
        configuration.deliveryTimeout = timeout.duration
        configuration.idempotent = false
        let producer = try KafkaProducer(configuration: configuration, logger: logger)
        do {
            try await give(action, producer: producer, client: client, logger: logger)
        } catch {
            await producer.shutdown()
            throw error
        }
        await producer.shutdown()
    }

    private func give(
        _ action: CampaignCommand.Action, producer: KafkaProducer, client: KafkaClientConfiguration, logger: Logger
    ) async throws {
        let current = try await CampaignTopicRead.control(
            topic: topic, client: client, timeout: timeout.duration, logger: logger)
        let previous = current.command(for: campaignID)
        if let previous, previous.action == .cancel, action != .cancel, !force {
            throw CommandFailure(
                "\(campaignID) was cancelled by \(previous.by) at \(previous.at): \(action.rawValue) would let its jobs not yet "
                    + "dropped send again; add --force if that is what you want", exit: .usage)
        }
        var at = UTCTimestamp.now()
        if let previous, previous.at >= at {
            at = UTCTimestamp(millisecondsSince1970: previous.at.millisecondsSince1970 + 1)
        }
        let command = CampaignCommand(campaignID: campaignID, action: action, by: giver, reason: reason, at: at)
        let report: KafkaDeliveryReport
        do {
            report = try await producer.send(
                KafkaProducerMessage(topic: topic, key: command.key, value: command.encodedValue()))
        } catch {
            throw CommandFailure(
                "writing the \(action.rawValue) of \(campaignID) to \(topic) on \(client.brokerList) failed: \(error.message)",
                exit: CommandExit.status(of: error))
        }
        print(
            "\(action.rawValue) \(campaignID): written to \(topic) (partition \(report.partition), offset \(report.offset)) at \(at) by \(command.by)"
        )
        if let previous, previous.action == action {
            print("(it was \(Self.state(previous.action)) already, since \(previous.at) by \(previous.by))")
        }
    }

    static func state(_ action: CampaignCommand.Action) -> String {
        switch action {
        case .cancel: "cancelled"
        case .pause: "paused"
        case .resume: "resumed"
        }
    }
}
