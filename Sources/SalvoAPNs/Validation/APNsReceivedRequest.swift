/// What a server learnt from a request that passed ``APNsRequestValidator``: the fields a mock
/// records, answers with (`apns-id`) or keys its scenarios on (token, topic).
public struct APNsReceivedRequest: Sendable, Hashable {
    public var token: DeviceToken
    /// The `apns-topic` header, or the validator's topic for headerless certificate connections.
    public var topic: APNsTopic
    /// The `apns-push-type` header, or the type inferred from the topic when it was absent.
    public var pushType: APNsPushType
    /// The `apns-priority` header, or 10 (Apple's default) when it was absent.
    public var priority: APNsPriority
    public var expiration: APNsExpiration?
    public var collapseID: APNsCollapseID?
    /// The `apns-id` header; nil when the sender let APNs choose.
    public var apnsID: APNsID?
    /// The `authorization` header value (bearer token), if any, for the separate auth check.
    public var authorization: [UInt8]?
    public var bodySize: Int

    public init(
        token: DeviceToken,
        topic: APNsTopic,
        pushType: APNsPushType,
        priority: APNsPriority,
        expiration: APNsExpiration? = nil,
        collapseID: APNsCollapseID? = nil,
        apnsID: APNsID? = nil,
        authorization: [UInt8]? = nil,
        bodySize: Int
    ) {
        self.token = token
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.apnsID = apnsID
        self.authorization = authorization
        self.bodySize = bodySize
    }
}
