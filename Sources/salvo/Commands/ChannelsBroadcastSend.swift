import ArgumentParser
import Foundation
import NIOCore
import NIOPosix
import SalvoAPNs

extension SendCommand {
    /// `salvo send --channel-id`: one broadcast to a Live Activity channel through
    /// ``APNsChannelClient``, printed like a device push's answer (exit 0 accepted, 1 refused,
    /// 2 no answer).
    func broadcast(
        channelID text: String, credential: APNsCredential, environment: APNsEnvironment, file: ConfigFile?
    ) async throws {
        guard let channelID = APNsChannelID(text) else {
            throw ValidationError("--channel-id must be a base64 channel id")
        }
        var topicText = self.topic ?? file?.topic
        if topicText == nil, case .certificate(let certificate) = credential { topicText = certificate.bundleID }
        guard let topicText, let bundleID = APNsTopic(headerValue: topicText.utf8) else {
            throw ValidationError("--topic (the app's bundle id) is required for a broadcast with token authentication")
        }
        let now = Int64(Date().timeIntervalSince1970)
        let payload = try self.payloadText(
            default: #"{"aps":{"timestamp":\#(now),"event":"update","content-state":{}}}"#)
        let request: APNsBroadcastRequest
        do {
            request = try APNsBroadcastRequest(
                bundleID: bundleID, channelID: channelID,
                priority: self.priority.flatMap(APNsPriority.init(rawValue:)) ?? .immediate,
                expiration: try self.expiration.map { try APNsExpiration(secondsSince1970: $0) } ?? .immediately,
                requestID: try self.apnsID.map { value in
                    guard let id = APNsID(value) else { throw ValidationError("--apns-id must be a UUID") }
                    return id
                },
                payload: ByteBuffer(string: payload))
        } catch let error as APNsError {
            throw ValidationError(error.message)
        }
        let client = try APNsChannelClient(
            configuration: try self.connectionConfiguration(file), eventLoopGroup: MultiThreadedEventLoopGroup.singleton
        )
        let response: APNsChannelResponse
        do {
            response = try await client.broadcast(request, credential: credential, environment: environment)
        } catch {
            await client.shutdown()
            self.printFailure(error, environment: environment)
            throw CommandExit.status(of: error).exitCode
        }
        await client.shutdown()
        self.emit(
            [("environment", environment.description), ("channel-id", channelID.string)]
                + ChannelsAnswer.fields(response))
        if !response.isSuccess { throw CommandExit.refused.exitCode }
    }
}

/// How `salvo send --channel-id` and `salvo channels` print an answer: the status, Apple's ids,
/// the reason and the retry advice of a refusal.
enum ChannelsAnswer {
    static func fields(_ response: APNsChannelResponse) -> [(String, String)] {
        var fields: [(String, String)] = [("status", String(response.status))]
        if let requestID = response.requestID { fields.append(("apns-request-id", requestID)) }
        if let uniqueID = response.uniqueID { fields.append(("apns-unique-id", uniqueID)) }
        if let channelID = response.channelID { fields.append(("apns-channel-id", channelID.string)) }
        if let reason = response.reason { fields.append(("reason", reason.string)) }
        if let policy = response.retryPolicy { fields.append(("retry", "\(policy)")) }
        return fields
    }

    /// `name: value` lines, or one JSON object with sorted keys (`--json`).
    static func emit(_ fields: [(String, String)], json: Bool) {
        if json {
            let object = Dictionary(fields, uniquingKeysWith: { first, _ in first })
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
            print(String(decoding: data, as: UTF8.self))
        } else {
            for (name, value) in fields { print("\(name): \(value)") }
        }
    }
}
