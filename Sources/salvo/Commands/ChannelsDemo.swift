import Foundation
import NIOCore
import NIOPosix
import SalvoAPNs
import SalvoMockAPNs
import SalvoWorker

/// `salvo demo`'s Live Activities part, after the load: a few channels on the mock's
/// channel-management listener, one broadcast job per channel decoded and sent the way the worker
/// does it (``JobDecoder/decodeAny(_:)``, ``BroadcastSender``, ``BroadcastOutcome``), and one to a
/// deleted channel, which ends as a dead letter with its channel feedback event. Its numbers are
/// checked against the mock's `/stats`, like the rest of the demo.
struct ChannelsDemo {
    static let channelCount = 3

    /// Summary lines, and what disagrees (empty when the part passed).
    var lines: [String] = []
    var problems: [String] = []

    /// Runs the part on the demo's mock (started with its channel-management listener).
    static func run(mock: DemoMock) async -> ChannelsDemo {
        var result = ChannelsDemo()
        do {
            guard let port = mock.server.addresses?.broadcast?.port else {
                throw ChannelsDemoError("the mock has no channel-management listener")
            }
            try await result.play(server: mock.server, app: try mock.workerApp(), appName: "live", managementPort: port)
        } catch {
            result.problems.append("live activities: \(error)")
        }
        return result
    }

    private mutating func play(
        server: MockAPNsServer, app: WorkerApp, appName: String, managementPort: Int
    ) async throws {
        let management = APNsEnvironment.custom(host: "127.0.0.1", port: managementPort, behavesAs: .production)
        let registry = try APNsTokenProviderRegistry(clock: ContinuousClock())
        let client = try APNsChannelClient(
            configuration: app.pool.connection, eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
            tokenProviders: registry)
        let sender = try BroadcastSender(
            apps: [appName: app], managementEndpoints: [appName: [.production: management]],
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton, tokenProviders: registry)
        defer {
            Task {
                await client.shutdown()
                await sender.shutdown()
            }
        }
        let bundleID = try APNsTopic(app.bundleID)
        var channels: [APNsChannelID] = []
        for index in 0..<Self.channelCount {
            let policy: APNsChannelStoragePolicy = index == 0 ? .mostRecentMessage : .noStorage
            let created = try await client.createChannel(
                bundleID: bundleID, storagePolicy: policy, credential: app.credential, endpoint: management)
            guard let id = created.channelID else {
                throw ChannelsDemoError("create answered \(created.status) \(created.reason?.string ?? "")")
            }
            channels.append(id)
        }
        let decoder = try JobDecoder(configuration: .init(apps: [appName: app.profile]))
        var delivered = 0
        for (index, channel) in channels.enumerated() {
            // The stored channel takes an expiration: the sender reads its policy first.
            let expiration = index == 0 ? Int(Date().timeIntervalSince1970) + 3_600 : 0
            if case .delivered = try await self.broadcast(
                job: "demo-la-\(index)", channel, expiration, decoder: decoder, sender: sender)
            {
                delivered += 1
            }
        }
        let deleted = try await client.deleteChannel(
            bundleID: bundleID, channelID: channels[2], credential: app.credential, endpoint: management)
        var feedback = 0
        if case .deadLetter(let letter, let event?) = try await self.broadcast(
            job: "demo-la-gone", channels[2], 0, decoder: decoder, sender: sender),
            letter.reason.apnsReason == APNsReason.channelNotRegistered.string,
            event.key == Array(channels[2].string.utf8)
        {
            feedback = 1
        }
        let listed = try await client.listChannels(bundleID: bundleID, credential: app.credential, endpoint: management)
        let remaining = (try? listed.listedChannelIDs().count) ?? -1
        let stats = server.stats()
        self.lines.append(
            "  live    \(channels.count) Live Activity channels created, \(delivered) broadcast jobs delivered (one request each),"
                + " 1 to a deleted channel: \(feedback == 1 ? "dead letter ChannelNotRegistered + channel feedback event" : "NOT dead-lettered")"
                + "; \(remaining) channels left (mock: \(stats.channels) channels, \(stats.broadcastsAccepted) broadcasts accepted)"
        )
        func require(_ name: String, _ value: Int, _ wanted: Int) {
            if value != wanted { self.problems.append("live activities, \(name): \(value), expected \(wanted)") }
        }
        require("broadcasts delivered", delivered, channels.count)
        require("broadcasts accepted (mock /stats)", stats.broadcastsAccepted, channels.count)
        require("channel deleted (status)", deleted.status, 204)
        require("ChannelNotRegistered dead letters with feedback", feedback, 1)
        require("channels listed", remaining, channels.count - 1)
        require("channels (mock /stats)", stats.channels, channels.count - 1)
    }

    private func broadcast(
        job id: String, _ channel: APNsChannelID, _ expiration: Int, decoder: JobDecoder, sender: BroadcastSender
    ) async throws -> BroadcastOutcome {
        let appName = decoder.configuration.apps.keys.first ?? ""
        let message = ByteBuffer(
            string:
                #"{"id":"\#(id)","app":"\#(appName)","channel_id":"\#(channel.string)","expiration":\#(expiration),"priority":5,"#
                + #""payload":{"aps":{"event":"update","timestamp":\#(Int(Date().timeIntervalSince1970)),"content-state":{"step":"\#(id)"}}}}"#
        )
        guard case .success(.broadcast(let job)) = decoder.decodeAny(message) else {
            throw ChannelsDemoError("job \(id) did not decode as a broadcast")
        }
        return BroadcastOutcome.classify(
            await sender.send(job), job: job, message: message, source: nil, attempt: 1, at: .now())
    }
}

struct ChannelsDemoError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
