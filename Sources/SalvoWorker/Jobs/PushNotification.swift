import NIOCore
import SalvoAPNs

/// One notification to one device token, as it travels through lanes, rate limits, the APNs
/// pool, the classifier and the retry scheduler.
///
/// The payload is the job's shared buffer (or a per-token copy with a spliced badge), and the
/// headers are the job's, encoded once. `apnsID` is deterministic per (job, token), so a replay,
/// a retry or a redelivery after a crash carries the id of the first attempt.
public struct PushNotification: Sendable, Equatable {
    public var job: JobReference
    public var token: DeviceToken
    public var headers: APNsRequestHeaders
    public var payload: ByteBuffer
    public var apnsID: APNsID
    /// Which attempt the next send is: 1 for the first; retries after an APNs answer or a backoff
    /// increase it (``retried()``). Bounded by the classifier's maximum, then dead-lettered.
    public var attempt: Int
    /// Immediate replays of the current attempt after the request was never processed (refused
    /// stream, GOAWAY, connection lost); reset when the attempt increases.
    public var replays: Int

    public init(
        job: JobReference,
        token: DeviceToken,
        headers: APNsRequestHeaders,
        payload: ByteBuffer,
        apnsID: APNsID? = nil,
        attempt: Int = 1,
        replays: Int = 0
    ) {
        self.job = job
        self.token = token
        self.headers = headers
        self.payload = payload
        self.apnsID = apnsID ?? APNsID.deterministic(jobID: job.id, token: token)
        self.attempt = attempt
        self.replays = replays
    }

    /// The request to hand to the APNs pool. The decoder checked the job's payload once, and a
    /// badge splice keeps it an object, so only its size is checked again (a spliced badge adds
    /// bytes); the classifier dead-letters it if it is too large.
    public func request() throws(APNsError) -> APNsRequest {
        try APNsRequest(token: token, headers: headers, apnsID: apnsID, objectPayload: payload)
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
}
