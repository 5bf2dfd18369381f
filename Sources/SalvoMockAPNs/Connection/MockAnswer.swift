import NIOCore
import SalvoAPNs

/// What the mock decided to answer one request, kept until the drawn latency has passed.
enum MockAnswer {
    case accepted(APNsReceivedRequest, payload: ByteBuffer, apnsID: APNsID)
    case rejected(APNsReason, apnsID: APNsID, request: APNsReceivedRequest?, timestampMilliseconds: Int64?)
    /// RST_STREAM(INTERNAL_ERROR) instead of a response (the `stream_reset_rate` fault).
    case resetStream
}
