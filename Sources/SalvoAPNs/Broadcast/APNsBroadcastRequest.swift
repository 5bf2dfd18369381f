import NIOCore

/// One broadcast to a Live Activity channel: `POST /4/broadcasts/apps/<bundle id>` on the normal
/// APNs hosts, with `apns-channel-id`, `apns-push-type: liveactivity`, `apns-priority`,
/// `apns-expiration` and an optional `apns-request-id`.
///
/// Checked before sending like ``APNsRequest``: a payload empty, over 5,120 bytes or not shaped
/// like a JSON object, a negative expiration. The rule that ties expiration to the channel's
/// storage policy (a no-storage channel takes only `apns-expiration: 0`) needs the policy, which
/// only the channel's creator or a read knows: ``check(storagePolicy:)``.
public struct APNsBroadcastRequest: Sendable {
    /// Apple's limit for broadcast payloads.
    public static let maximumPayloadSize = 5120
    /// The only push type a broadcast carries, as Apple's broadcast reference writes it.
    public static let pushType = "liveactivity"

    public let bundleID: APNsTopic
    public let channelID: APNsChannelID
    /// Default: 10 (immediate). Priority-10 updates count against the device's Live Activity budget.
    public let priority: APNsPriority
    /// Default: 0 (no storage; the only value a no-storage channel accepts).
    public let expiration: APNsExpiration
    /// Echoed by APNs in `apns-request-id`; nil lets APNs generate one.
    public let requestID: APNsID?
    public let payload: ByteBuffer

    public init(
        bundleID: APNsTopic, channelID: APNsChannelID, priority: APNsPriority = .immediate,
        expiration: APNsExpiration = .immediately, requestID: APNsID? = nil, payload: ByteBuffer
    ) throws(APNsError) {
        try Self.checkPayload(payload)
        self.bundleID = bundleID
        self.channelID = channelID
        self.priority = priority
        self.expiration = expiration
        self.requestID = requestID
        self.payload = payload
    }

    /// `PayloadEmpty`, `PayloadTooLarge` (over 5,120 bytes), or not a JSON object.
    public static func checkPayload(_ payload: ByteBuffer) throws(APNsError) {
        let size = payload.readableBytes
        if size == 0 {
            throw APNsError(code: .payloadEmpty, message: "broadcast payload is empty", reason: .payloadEmpty)
        }
        if size > Self.maximumPayloadSize {
            throw APNsError(
                code: .payloadTooLarge,
                message: "broadcast payload has \(size) bytes; at most \(Self.maximumPayloadSize)",
                reason: .payloadTooLarge)
        }
        try APNsRequest.checkPayload(payload.readableBytesView, pushType: .voip)
    }

    /// Apple's storage rule: a channel created with ``APNsChannelStoragePolicy/noStorage``
    /// refuses any expiration but 0 (`BadExpirationDate`).
    public func check(storagePolicy: APNsChannelStoragePolicy) throws(APNsError) {
        if storagePolicy == .noStorage && self.expiration.secondsSince1970 != 0 {
            throw APNsError(
                code: .invalidExpiration,
                message:
                    "a no-storage channel (message-storage-policy 0) takes only apns-expiration 0, got \(self.expiration)",
                reason: .badExpirationDate)
        }
    }

    /// `/4/broadcasts/apps/<bundle id>`.
    public var path: String { "/4/broadcasts/apps/" + self.bundleID.string }

    /// The request's APNs header fields (without `authorization`).
    public var headerFields: [(String, String)] {
        var fields = [
            ("apns-channel-id", self.channelID.string), ("apns-push-type", Self.pushType),
            ("apns-priority", String(self.priority.rawValue)), ("apns-expiration", self.expiration.description),
        ]
        if let requestID { fields.append(("apns-request-id", requestID.description)) }
        return fields
    }
}

extension APNsBroadcastRequest {
    /// A request id derived from (job id, channel id) the way device pushes derive `apns-id` from
    /// (job id, token) (``APNsID/deterministic(jobID:token:)``, the same key, the channel id's text
    /// in place of the token's hex), so a replayed broadcast keeps its `apns-request-id`.
    public static func deterministicRequestID(jobID: String, channelID: APNsChannelID) -> APNsID {
        var hasher = SipHash128(k0: APNsID.deterministicKey.k0, k1: APNsID.deterministicKey.k1)
        var jobID = jobID
        jobID.withUTF8 { job in
            hasher.update(UInt64(job.count).bigEndian)
            hasher.update(UnsafeRawBufferPointer(job))
        }
        var channel = channelID.string
        channel.withUTF8 { hasher.update(UnsafeRawBufferPointer($0)) }
        let (first, second) = hasher.finalize()
        // Version 5 and the RFC 4122 variant, as the device ids set them.
        return APNsID(
            high: (first & ~0xF000) | 0x5000, low: (second & ~(0xC000_0000_0000_0000 as UInt64)) | 0x8000_0000_0000_0000
        )
    }
}
