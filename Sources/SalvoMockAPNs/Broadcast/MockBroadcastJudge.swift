import NIOCore
import SalvoAPNs

/// Apple's rules for the channel-management API (second listener) and the broadcast endpoint
/// (APNs listener), free of NIO so each rule is tested alone. The first failure wins, in this
/// order: path (`BadPath`), method (`MethodNotAllowed`), `apns-request-id` (`BadRequestParams`),
/// authentication and `TopicMismatch` (the caller's `authenticate`), `FeatureNotEnabled`,
/// `TopicDisallowed`, then the operation's own rules (documented in docs/mock-apns.md).
struct MockBroadcastJudge: Sendable {
    let store: MockChannelStore
    let environment: APNsEnvironment.Kind
    /// Bundle ids whose broadcast capability is off (`FeatureNotEnabled`).
    let featureDisabled: Set<String>
    /// Bundle ids this server refuses broadcasts and channels for (`TopicDisallowed`).
    let disallowed: Set<String>

    enum Outcome: Sendable, Equatable {
        case created(channelID: String)
        case read(APNsChannelConfiguration)
        case deleted
        case listed([String])
        case broadcast(channelID: String)
        case rejected(APNsReason)
    }

    static let broadcastPrefix = "/4/broadcasts/apps/"

    // MARK: Channel management

    private enum Operation {
        case create, read, delete, list
    }

    func manage(_ request: MockBroadcastRequest, authenticate: (String) -> APNsReason?) -> Outcome {
        guard let (bundleID, resource) = Self.managementPath(request.path) else { return .rejected(.badPath) }
        let operation: Operation
        switch (resource, request.method) {
        case ("channels", "POST"): operation = .create
        case ("channels", "GET"): operation = .read
        case ("channels", "DELETE"): operation = .delete
        case ("all-channels", "GET"): operation = .list
        default: return .rejected(.methodNotAllowed)
        }
        if let reason = self.common(request, bundleID: bundleID, authenticate: authenticate) {
            return .rejected(reason)
        }
        switch operation {
        case .create:
            let configuration: APNsChannelConfiguration
            do throws(APNsReason) {
                configuration = try APNsChannelConfiguration(parsing: Array(request.body.readableBytesView))
            } catch {
                return .rejected(error)
            }
            guard
                let id = self.store.create(
                    bundleID: bundleID, environment: self.environment,
                    storagePolicy: configuration.storagePolicy.rawValue)
            else { return .rejected(.cannotCreateChannelConfig) }
            return .created(channelID: id)
        case .read:
            switch self.channel(request, bundleID: bundleID) {
            case .failure(let reason): return .rejected(reason)
            case .success(let (_, policy)):
                return .read(
                    APNsChannelConfiguration(storagePolicy: APNsChannelStoragePolicy(rawValue: policy) ?? .noStorage))
            }
        case .delete:
            switch self.channel(request, bundleID: bundleID) {
            case .failure(let reason): return .rejected(reason)
            case .success(let (id, _)):
                // Deleted between the lookup and now by another request: the same answer it got.
                guard self.store.delete(bundleID: bundleID, environment: self.environment, channelID: id) else {
                    return .rejected(.channelNotRegistered)
                }
                return .deleted
            }
        case .list:
            return .listed(self.store.channelIDs(bundleID: bundleID, environment: self.environment))
        }
    }

    /// `/1/apps/<bundle>/channels` or `/1/apps/<bundle>/all-channels` → (bundle, resource).
    static func managementPath(_ path: String) -> (String, String)? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0].isEmpty, parts[1] == "1", parts[2] == "apps",
            APNsTopic(headerValue: parts[3].utf8) != nil, parts[4] == "channels" || parts[4] == "all-channels"
        else { return nil }
        return (String(parts[3]), String(parts[4]))
    }

    // MARK: Broadcast

    func broadcast(_ request: MockBroadcastRequest, authenticate: (String) -> APNsReason?) -> Outcome {
        guard request.path.hasPrefix(Self.broadcastPrefix) else { return .rejected(.badPath) }
        let bundleID = String(request.path.dropFirst(Self.broadcastPrefix.count))
        guard APNsTopic(headerValue: bundleID.utf8) != nil, !bundleID.contains("/") else { return .rejected(.badPath) }
        guard request.method == "POST" else { return .rejected(.methodNotAllowed) }
        if let reason = self.common(request, bundleID: bundleID, authenticate: authenticate) {
            return .rejected(reason)
        }
        let channelID: String
        let policy: Int
        switch self.channel(request, bundleID: bundleID) {
        case .failure(let reason): return .rejected(reason)
        case .success(let found): (channelID, policy) = found
        }
        guard let pushTypes = request.fields["apns-push-type"] else { return .rejected(.missingPushType) }
        guard pushTypes.count == 1, pushTypes[0].lowercased() == APNsBroadcastRequest.pushType else {
            return .rejected(.invalidPushType)
        }
        if let values = request.fields["apns-priority"] {
            guard values.count == 1, let priority = APNsPriority(headerValue: values[0].utf8) else {
                return .rejected(.badPriority)
            }
            _ = priority
        }
        if let values = request.fields["apns-expiration"] {
            guard values.count == 1, let expiration = APNsExpiration(headerValue: values[0].utf8) else {
                return .rejected(.badExpirationDate)
            }
            if policy == APNsChannelStoragePolicy.noStorage.rawValue && expiration.secondsSince1970 != 0 {
                return .rejected(.badExpirationDate)
            }
        }
        let size = request.body.readableBytes
        if size == 0 { return .rejected(.payloadEmpty) }
        if size > APNsBroadcastRequest.maximumPayloadSize { return .rejected(.payloadTooLarge) }
        if !MockJSONObject.isObject(request.body.readableBytesView) { return .rejected(.badRequestPayload) }
        return .broadcast(channelID: channelID)
    }

    // MARK: Shared rules

    private func common(
        _ request: MockBroadcastRequest, bundleID: String, authenticate: (String) -> APNsReason?
    ) -> APNsReason? {
        if request.requestID == .invalid { return .badRequestParams }
        if let reason = authenticate(bundleID) { return reason }
        if self.featureDisabled.contains(bundleID) { return .featureNotEnabled }
        if self.disallowed.contains(bundleID) { return .topicDisallowed }
        return nil
    }

    /// The request's `apns-channel-id` and the channel's policy: `MissingChannelId`,
    /// `BadChannelId` (not base64, or sent twice), `ChannelNotRegistered`.
    private func channel(_ request: MockBroadcastRequest, bundleID: String) -> Result<(String, Int), APNsReason> {
        guard let values = request.fields["apns-channel-id"], let id = values.first else {
            return .failure(.missingChannelId)
        }
        guard values.count == 1, APNsChannelID(id) != nil else { return .failure(.badChannelId) }
        guard let policy = self.store.storagePolicy(bundleID: bundleID, environment: self.environment, channelID: id)
        else {
            return .failure(.channelNotRegistered)
        }
        return .success((id, policy))
    }
}
