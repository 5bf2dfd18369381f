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
package struct PushNotification: Sendable, Equatable {
    /// The job's part of a notification, built once per job (or per notification when made
    /// one at a time).
    package final class Shared: Sendable {
        package let job: JobReference
        package let headers: APNsRequestHeaders
        /// The job's payload; a token with a spliced badge carries its own copy instead.
        package let payload: ByteBuffer
        /// The job's deterministic `apns-id`s.
        let apnsIDs: APNsID.DeterministicNamespace
        /// The decoded job, when these notifications are built from one (``Job/shared(_:)``): a
        /// lane's ``DispatchUnit`` reaches it here, so a job costs one object, not two.
        let origin: Job?

        package convenience init(job: JobReference, headers: APNsRequestHeaders, payload: ByteBuffer) {
            self.init(job: job, headers: headers, payload: payload, origin: nil)
        }

        init(job: JobReference, headers: APNsRequestHeaders, payload: ByteBuffer, origin: Job?) {
            self.job = job
            self.headers = headers
            self.payload = payload
            self.apnsIDs = APNsID.DeterministicNamespace(jobID: job.id)
            self.origin = origin
        }
    }

    package let shared: Shared
    package let token: DeviceToken
    /// This token's payload when it differs from the job's (a spliced badge).
    private let ownPayload: ByteBuffer?
    package let apnsID: APNsID
    /// The token's position among its job's (or retry record's) notifications: what the job's
    /// checkpoint counts (``JobLedger``). 0 for a notification made on its own.
    package let index: Int32
    /// Which attempt the next send is: 1 for the first; retries after an APNs answer or a backoff
    /// increase it (``retried()``). Bounded by the classifier's maximum, then dead-lettered.
    package private(set) var attempt: Int
    /// Immediate replays of the current attempt after the request was never processed (refused
    /// stream, GOAWAY, connection lost); reset when the attempt increases.
    package private(set) var replays: Int

    package var job: JobReference { shared.job }
    package var headers: APNsRequestHeaders { shared.headers }
    package var payload: ByteBuffer { ownPayload ?? shared.payload }

    /// A notification on its own (its job's part is not shared with others).
    package init(
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
    package init(
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
    package func request() throws(APNsError) -> APNsRequest {
        try APNsRequest(token: token, headers: shared.headers, apnsID: apnsID, objectPayload: payload)
    }

    /// The same notification for its next attempt (after a retryable answer or a backoff).
    package func retried() -> PushNotification {
        var next = self
        next.attempt += 1
        next.replays = 0
        return next
    }

    /// The same notification replayed at once within the current attempt.
    package func replayed() -> PushNotification {
        var next = self
        next.replays += 1
        return next
    }

    package static func == (lhs: PushNotification, rhs: PushNotification) -> Bool {
        lhs.token == rhs.token && lhs.apnsID == rhs.apnsID && lhs.attempt == rhs.attempt && lhs.replays == rhs.replays
            && lhs.job == rhs.job && lhs.headers == rhs.headers && lhs.payload == rhs.payload
    }
}
