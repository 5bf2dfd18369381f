import SalvoAPNs
import SalvoHTTP2
import Synchronization

extension MockAPNsConnectionHandler {
    /// The broadcast endpoint (`/4/broadcasts/apps/<bundle id>`) on the APNs listener; nil when
    /// the path is not a broadcast path (the device-push answer stands).
    func judgeBroadcast(_ http2: HTTP2Request, receivedAt: Int64) -> MockAnswer? {
        guard let path = http2.path, path.hasPrefix(MockBroadcastJudge.broadcastPrefix) else { return nil }
        let request = MockBroadcastRequest(http2)
        let outcome = self.runtime.broadcastJudge.broadcast(request) { bundleID in
            self.authenticateChannelRequest(request, bundleID: bundleID, nowSeconds: receivedAt / 1000)
        }
        let response = MockBroadcastAnswer.response(outcome, request: request)
        switch outcome {
        case .broadcast(let channelID):
            let accepted = MockAcceptedBroadcast(
                bundleID: String(path.dropFirst(MockBroadcastJudge.broadcastPrefix.count)), channelID: channelID,
                requestID: response.headers.first(name: "apns-request-id") ?? "",
                priority: request.first("apns-priority").flatMap { Int($0) } ?? APNsPriority.immediate.rawValue,
                expiration: request.first("apns-expiration").flatMap { Int64($0) } ?? 0, payload: request.body,
                receivedAtMilliseconds: receivedAt, connectionID: self.connectionID)
            return .broadcast(response, accepted: accepted, reason: nil)
        case .rejected(let reason):
            return .broadcast(response, accepted: nil, reason: reason)
        default:
            // The broadcast rules answer nothing else.
            return .broadcast(response, accepted: nil, reason: .internalServerError)
        }
    }

    /// Authentication for broadcasts, as for pushes, plus `TopicMismatch` when a certificate, or
    /// a token's team listed in `teamBundleIDs`, names another bundle than the path.
    func authenticateChannelRequest(_ request: MockBroadcastRequest, bundleID: String, nowSeconds: Int64) -> APNsReason?
    {
        if case .certificate(let certificateBundleID) = self.authentication, certificateBundleID != bundleID {
            return .topicMismatch
        }
        let authorization = request.first("authorization").map { Array($0.utf8) }
        if let reason = self.authenticate(authorization: authorization, nowSeconds: nowSeconds) { return reason }
        guard self.authentication == .token else { return nil }
        return self.runtime.teamMismatch(teamID: self.providerToken.teamID, bundleID: bundleID)
    }

    func sendBroadcast(
        _ response: HTTP2Response, accepted: MockAcceptedBroadcast?, reason: APNsReason?, streamID: Int32
    ) {
        guard self.respond(streamID: streamID, response) else { return }
        let counters = self.runtime.counters
        if let accepted {
            counters.broadcastsAccepted.wrappingAdd(1, ordering: .relaxed)
            for listener in self.runtime.listeners { listener.broadcastAccepted(accepted) }
        } else if let reason {
            counters.rejected(reason)
        }
        self.apply(
            self.connection.answered(
                accepted: accepted != nil, dropStreamsAfterRejection: self.scenario.dropStreamsAfterRejection,
                tokenValidated: self.tokenValidated))
    }
}
