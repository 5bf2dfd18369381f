import NIOCore
import SalvoAPNs
import SalvoHTTP2

/// What the mock decided to answer one request, kept until the drawn latency has passed.
enum MockAnswer {
    case accepted(APNsReceivedRequest, payload: ByteBuffer, apnsID: APNsID)
    case rejected(APNsReason, apnsID: APNsID, request: APNsReceivedRequest?, timestampMilliseconds: Int64?)
    /// An answer of the broadcast endpoint, built by ``MockBroadcastAnswer``; `accepted` for a 200,
    /// `reason` for a refusal.
    case broadcast(HTTP2Response, accepted: MockAcceptedBroadcast?, reason: APNsReason?)
    /// RST_STREAM(INTERNAL_ERROR) instead of a response (the `stream_reset_rate` fault).
    case resetStream
}
