import NIOCore
import SalvoAPNs

/// A decoded, validated broadcast job: one Live Activity update for every device subscribed to a
/// channel (`channel_id` instead of `token`/`tokens`), sent as one request to the app's broadcast
/// endpoint (`POST /4/broadcasts/apps/<bundle id>` on the environment's APNs host).
///
/// Checked when decoded: the channel id's shape, push type (`liveactivity` only), no collapse id,
/// no per-token overrides, priority, expiration, payload (≤ 5,120 bytes, a JSON object, and the
/// Live Activity rules of ``LiveActivityPayload`` for a broadcast). The storage-policy rule
/// (a no-storage channel takes only expiration 0) needs the channel's policy:
/// ``request(storagePolicy:)`` applies it when the caller knows it; otherwise APNs answers
/// `BadExpirationDate`, a permanent refusal.
package final class BroadcastJob: Sendable {
    package let id: String
    package let app: String
    package let campaignID: String?
    package let environment: APNsEnvironment.Kind
    package let bundleID: APNsTopic
    package let channelID: APNsChannelID
    package let priority: APNsPriority
    package let expiration: APNsExpiration
    /// The payload's exact bytes (a slice of the message, or `payload_raw`'s text).
    package let payload: ByteBuffer
    /// What devices would ignore (for `salvo_live_activity_warnings_total`).
    package let warnings: LiveActivityWarnings

    init(
        id: String, app: String, campaignID: String?, environment: APNsEnvironment.Kind, bundleID: APNsTopic,
        channelID: APNsChannelID, priority: APNsPriority, expiration: APNsExpiration, payload: ByteBuffer,
        warnings: LiveActivityWarnings
    ) {
        self.id = id
        self.app = app
        self.campaignID = campaignID
        self.environment = environment
        self.bundleID = bundleID
        self.channelID = channelID
        self.priority = priority
        self.expiration = expiration
        self.payload = payload
        self.warnings = warnings
    }

    /// A broadcast is one request, whatever the audience.
    package var notificationCount: Int { 1 }

    /// The request for ``APNsChannelClient/broadcast(_:credential:environment:)``, with a request
    /// id derived from the job id (a replayed job keeps it).
    /// - Parameter storagePolicy: the channel's, when known: a nonzero expiration on a no-storage
    ///   channel fails here (`invalid_expiration`) instead of at APNs.
    package func request(storagePolicy: APNsChannelStoragePolicy? = nil) throws(JobRejection) -> APNsBroadcastRequest {
        do throws(APNsError) {
            let request = try APNsBroadcastRequest(
                bundleID: self.bundleID, channelID: self.channelID, priority: self.priority,
                expiration: self.expiration,
                requestID: self.requestID, payload: self.payload)
            if let storagePolicy { try request.check(storagePolicy: storagePolicy) }
            return request
        } catch {
            throw JobRejection(error)
        }
    }

    /// `apns-request-id`, derived from the job id and channel id (a replayed job keeps it, so
    /// replays are recognisable in APNs's answers and in the mock's record).
    package var requestID: APNsID {
        APNsBroadcastRequest.deterministicRequestID(jobID: self.id, channelID: self.channelID)
    }
}
