import NIOCore

/// APNs's answer to one notification.
///
/// A 200 carries only headers, and building the value then parses nothing but the `apns-id`
/// the caller chooses to pass; the body is read only for error statuses, which are rare except for
/// stale tokens (410), and even then through a byte scanner rather than a JSON decoder.
public struct APNsResponse: Sendable, Hashable {
    public var status: Int
    /// The `apns-id` header: the id sent, or the one APNs assigned.
    public var apnsID: APNsID?
    /// The `apns-unique-id` header (sandbox only), which Apple's delivery log tool accepts.
    public var apnsUniqueID: APNsID?
    /// Why APNs refused the notification; nil for 200 or when the error body was unreadable.
    public var reason: APNsReason?
    /// For 410: when APNs learnt the token stopped being valid (milliseconds since 1970).
    public var timestampMilliseconds: Int64?

    public init(
        status: Int,
        apnsID: APNsID? = nil,
        apnsUniqueID: APNsID? = nil,
        reason: APNsReason? = nil,
        timestampMilliseconds: Int64? = nil
    ) {
        self.status = status
        self.apnsID = apnsID
        self.apnsUniqueID = apnsUniqueID
        self.reason = reason
        self.timestampMilliseconds = timestampMilliseconds
    }

    /// Builds the response from the wire: the body is parsed only when the status is not 200.
    public init(status: Int, apnsID: APNsID?, apnsUniqueID: APNsID? = nil, body: ByteBuffer?) {
        self.init(status: status, apnsID: apnsID, apnsUniqueID: apnsUniqueID)
        guard status != 200, let body, body.readableBytes > 0,
            let errorBody = APNsErrorBody(parsing: body.readableBytesView)
        else { return }
        self.reason = errorBody.reason
        self.timestampMilliseconds = errorBody.timestampMilliseconds
    }

    /// Builds the response from raw response headers (for example those an HTTP/2 layer delivers),
    /// reading `apns-id` and `apns-unique-id`.
    public init(status: Int, headers: some Sequence<APNsHeaderField>, body: ByteBuffer?) {
        var apnsID: APNsID?
        var apnsUniqueID: APNsID?
        for field in headers {
            if field.name == APNsHeaderField.Name.apnsID {
                apnsID = APNsID(headerValue: field.value)
            } else if field.name == APNsHeaderField.Name.apnsUniqueID {
                apnsUniqueID = APNsID(headerValue: field.value)
            }
        }
        self.init(status: status, apnsID: apnsID, apnsUniqueID: apnsUniqueID, body: body)
    }

    /// APNs accepted the notification for delivery.
    public var isAccepted: Bool { status == 200 }

    /// What to do next: nil when accepted; else the status decides the class (429 delays the
    /// token, 5xx backs off, other statuses are permanent) and the reason refines it only when
    /// Apple's table pairs it with this status (429 TooManyProviderTokenUpdates backs off, 403
    /// ExpiredProviderToken refreshes the token). A 500 carrying `BadDeviceToken` is a 5xx.
    public var retryPolicy: APNsRetryPolicy? {
        if isAccepted { return nil }
        return pairedReason?.retryPolicy ?? APNsRetryPolicy(status: status)
    }

    /// Whether an invalid-token event should go to the feedback topic: a token reason with the
    /// status Apple pairs it with (410 Unregistered, 400 BadDeviceToken, …). A token reason under
    /// another status is not trusted to declare a live token dead.
    public var producesFeedback: Bool {
        !isAccepted && (pairedReason?.producesFeedback ?? false)
    }

    /// ``reason`` when Apple's table gives it this response's status; nil for an unknown reason
    /// or one that came with another status.
    public var pairedReason: APNsReason? {
        guard let reason, reason.status == status else { return nil }
        return reason
    }
}
