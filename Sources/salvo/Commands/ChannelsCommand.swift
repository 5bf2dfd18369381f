import ArgumentParser
import SalvoAPNs

/// `salvo channels`: Apple's channel-management API for Live Activity broadcasts (create, read,
/// delete, list), with the worker's configuration file or `salvo send`'s credential flags.
/// Broadcast to a channel with `salvo send --channel-id`.
struct ChannelsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "channels",
        abstract: "Manage Live Activity broadcast channels (create, read, delete, list).",
        discussion: """
            With the worker's file: salvo channels list --worker-config worker.yaml --app news --environment sandbox
            With flags:             salvo channels create --app com.example.app --key-file AuthKey_KEYID.p8 --team-id TEAMID
            Against the mock:       add --host 127.0.0.1 --port <its --broadcast-listen port> [--h2c | --ca-file ca.pem]
            Exit status: 0 done, 1 refused by APNs (the reason is printed), 2 no answer, 64 a usage error.
            """,
        subcommands: [Create.self, Read.self, Delete.self, List.self]
    )

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a channel; prints its apns-channel-id.")

        @OptionGroup var options: ChannelsOptions

        @Option(name: .customLong("storage-policy"), help: "no-storage (0, the default) or most-recent (1).")
        var storagePolicy = "no-storage"

        func run() async throws {
            guard let policy = APNsChannelStoragePolicy(argument: self.storagePolicy) else {
                throw ValidationError(
                    "--storage-policy must be no-storage (0) or most-recent (1), got \(self.storagePolicy)")
            }
            try await self.options.run { (client, target) throws(APNsError) in
                try await client.createChannel(
                    bundleID: target.bundleID, storagePolicy: policy, credential: target.credential,
                    endpoint: target.endpoint)
            }
        }
    }

    struct Read: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print a channel's message-storage-policy.")

        @OptionGroup var options: ChannelsOptions

        @Option(name: .customLong("channel-id"), help: "The channel (apns-channel-id).")
        var channelID: String

        func run() async throws {
            let channel = try ChannelsCommand.channel(self.channelID)
            try await self.options.run(details: { response in
                [
                    (
                        "message-storage-policy",
                        (try? response.channelConfiguration()).map { "\($0.storagePolicy.rawValue)" } ?? "unreadable"
                    )
                ]
            }) { (client, target) throws(APNsError) in
                try await client.readChannel(
                    bundleID: target.bundleID, channelID: channel, credential: target.credential,
                    endpoint: target.endpoint)
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a channel.")

        @OptionGroup var options: ChannelsOptions

        @Option(name: .customLong("channel-id"), help: "The channel (apns-channel-id).")
        var channelID: String

        func run() async throws {
            let channel = try ChannelsCommand.channel(self.channelID)
            try await self.options.run { (client, target) throws(APNsError) in
                try await client.deleteChannel(
                    bundleID: target.bundleID, channelID: channel, credential: target.credential,
                    endpoint: target.endpoint)
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the app's channels (one per line after the answer).")

        @OptionGroup var options: ChannelsOptions

        func run() async throws {
            try await self.options.run(details: { response in
                let ids = (try? response.listedChannelIDs()) ?? []
                return [("count", String(ids.count)), ("channels", ids.map(\.string).joined(separator: " "))]
            }) { (client, target) throws(APNsError) in
                try await client.listChannels(
                    bundleID: target.bundleID, credential: target.credential, endpoint: target.endpoint)
            }
        }
    }

    static func channel(_ text: String) throws -> APNsChannelID {
        guard let channel = APNsChannelID(text) else {
            throw ValidationError("--channel-id must be a base64 channel id, got \(text)")
        }
        return channel
    }
}
