import ArgumentParser
import Foundation
import Logging
import SalvoKafka
import SalvoWorker

/// `salvo campaign status ID`: the fleet's progress of a campaign, merged from every worker's
/// records on the campaigns topic, with the command in force from the control topic.
struct CampaignStatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show a campaign's progress (all workers' counts merged), its control state and its rate.",
        discussion:
            "With --watch, prints a line every --interval with the totals and the rate since the previous line, until interrupted."
    )

    @Argument(help: "The campaign_id of the jobs.")
    var campaignID: String

    @OptionGroup var kafka: KafkaConnectionOptions

    @Flag(help: "Keep following and print a line every --interval.")
    var watch = false

    @Option(help: "How often --watch prints (e.g. 2s).")
    var interval: DurationArgument = .seconds(2)

    @Flag(help: "Print one JSON object (no --watch).")
    var json = false

    @Option(
        name: .customLong("campaigns-topic"),
        help: "The campaigns topic, each worker's campaign counts (the worker's topics.campaigns).")
    var campaignsTopic: String = WorkerTopics().campaigns

    @Option(name: .customLong("control-topic"), help: "The control topic (the worker's topics.control).")
    var controlTopic: String = WorkerTopics().control

    @Option(help: "How long to wait for the cluster (e.g. 10s, 500ms).")
    var timeout: DurationArgument = .seconds(15)

    @Flag(help: "Show librdkafka's logs on stderr.")
    var verbose = false

    func validate() throws {
        guard !(watch && json) else { throw ValidationError("--json prints once; leave out --watch") }
        guard interval.duration >= .milliseconds(100) else {
            throw ValidationError("--interval must be at least 100ms")
        }
    }

    func run() async throws {
        let logger = CommandLogger.make(label: "salvo.campaign", verbose: verbose)
        let client = try kafka.client(clientID: "salvo-campaign-status", verbose: verbose)
        let control = try CampaignControlFollower(topic: controlTopic, client: client, logger: logger)
        let progress = try CampaignTopicRead.Progress(topic: campaignsTopic, client: client, logger: logger)
        do {
            try await control.start(timeout: timeout.duration)
            _ = try await control.caughtUp(timeout: timeout.duration)
        } catch {
            await control.close()
            await progress.close()
            throw CampaignTopicRead.failure(error, topic: controlTopic, client: client)
        }
        do {
            try await progress.start(timeout: timeout.duration)
        } catch {
            await control.close()
            await progress.close()
            throw CampaignTopicRead.failure(error, topic: campaignsTopic, client: client)
        }
        let report = CampaignStatusReport(campaignID: campaignID)
        var previous = progress.totals(for: campaignID)
        if json {
            print(report.json(previous, command: control.current.command(for: campaignID)))
        } else {
            print(report.text(previous, command: control.current.command(for: campaignID)))
        }
        fflush(nil)
        while watch, !Task.isCancelled {
            try? await Task.sleep(for: interval.duration)
            let totals = progress.totals(for: campaignID)
            print(report.line(totals, since: previous, command: control.current.command(for: campaignID)))
            fflush(nil)  // nil: every stream, so a pipe reader sees each line as it is printed
            previous = totals
        }
        await control.close()
        await progress.close()
    }
}
