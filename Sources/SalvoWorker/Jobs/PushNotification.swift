import NIOCore
import SalvoAPNs

/// One notification to one device token, as it travels through lanes, rate limits, the APNs
/// pool, the classifier and the retry scheduler.
///
/// What every notification of a job shares (the job's reference, its encoded headers and its
/// payload) sits in one ``Shared`` object per job: a notification is copied several times on its
/// way (into a batch, the pool, the outcome), and each copy then costs one reference count for
/// the job's part instead of one per string and buffer in it. `apnsID` is deterministic per
/// (job, token), so a replay, a retry or a redelivery after a crash carries the id of the first
/// attempt.
public struct PushNotification: Sendable, Equatable {
    /// The job's part of a notification, built once per job (or per notification when made
    /// one at a time).
    public final class Shared: Sendable {
        public let job: JobReference
        public let headers: APNsRequestHeaders
        /// The job's payload; a token with a spliced badge carries its own copy instead.
        public let payload: ByteBuffer
        /// The job's deterministic `apns-id`s.
        let apnsIDs: APNsID.DeterministicNamespace

        public init(job: JobReference, headers: APNsRequestHeaders, payload: ByteBuffer) {
            self.job = job
            self.headers = headers
            self.payload = payload
            self.apnsIDs = APNsID.DeterministicNamespace(jobID: job.id)
        }
    }

    public let shared: Shared
    public let token: DeviceToken
    /// This token's payload when it differs from the job's (a spliced badge).
    private let ownPayload: ByteBuffer?
    public let apnsID: APNsID
    /// The token's position among its job's (or retry record's) notifications: what the job's
    /// checkpoint counts (``JobLedger``). 0 for a notification made on its own.
    public let index: Int32
    /// Which attempt the next send is: 1 for the first; retries after an APNs answer or a backoff
    /// increase it (``retried()``). Bounded by the classifier's maximum, then dead-lettered.
    public private(set) var attempt: Int
    /// Immediate replays of the current attempt after the request was never processed (refused
    /// stream, GOAWAY, connection lost); reset when the attempt increases.
    public private(set) var replays: Int

    public var job: JobReference { shared.job }
    public var headers: APNsRequestHeaders { shared.headers }
    public var payload: ByteBuffer { ownPayload ?? shared.payload }

    /// A notification on its own (its job's part is not shared with others).
    public init(
        job: JobReference,
        token: DeviceToken,
        headers: APNsRequestHeaders,
        payload: ByteBuffer,
        apnsID: APNsID? = nil,
        attempt: Int = 1,
        replays: Int = 0
    ) {
        self.init(
            shared: Shared(job: job, headers: headers, payload: payload), token: token, ownPayload: nil,
            apnsID: apnsID, attempt: attempt, replays: replays)
    }

    /// A notification of a job whose part is already built. `ownPayload`: nil for the job's payload.
    public init(
        shared: Shared, token: DeviceToken, ownPayload: ByteBuffer? = nil, apnsID: APNsID? = nil, index: Int32 = 0,
        attempt: Int = 1,
        replays: Int = 0
    ) {
        self.shared = shared
        self.token = token
        self.index = index
        self.ownPayload = ownPayload
        self.apnsID = apnsID ?? shared.apnsIDs.id(for: token)
        self.attempt = attempt
        self.replays = replays
    }

    /// The request to hand to the APNs pool. The decoder checked the job's payload once, and a
    /// badge splice keeps it an object, so only its size is checked again (a spliced badge adds
    /// bytes); the classifier dead-letters it if it is too large.
    public func request() throws(APNsError) -> APNsRequest {
        try APNsRequest(token: token, headers: shared.headers, apnsID: apnsID, objectPayload: payload)
    }

    /// The same notification for its next attempt (after a retryable answer or a backoff).
    public func retried() -> PushNotification {
        var next = self
        next.attempt += 1
        next.replays = 0
        return next
    }

    /// The same notification replayed at once within the current attempt.
    public func replayed() -> PushNotification {
        var next = self
        next.replays += 1
        return next
    }

    public static func == (lhs: PushNotification, rhs: PushNotification) -> Bool {
        lhs.token == rhs.token && lhs.apnsID == rhs.apnsID && lhs.attempt == rhs.attempt && lhs.replays == rhs.replays
            && lhs.job == rhs.job && lhs.headers == rhs.headers && lhs.payload == rhs.payload
    }
}
