import NIOCore
import SalvoAPNs

/// One notification in a dead letter. The token is text because a token the decoder refused is
/// not a ``DeviceToken``; it is written exactly as it was received.
public struct DeadLetterNotification: Sendable, Equatable {
    public var job: JobReference
    public var token: String
    public var headers: APNsRequestHeaders
    public var payload: ByteBuffer

    public init(job: JobReference, token: String, headers: APNsRequestHeaders, payload: ByteBuffer) {
        self.job = job
        self.token = token
        self.headers = headers
        self.payload = payload
    }

    public init(_ notification: PushNotification) {
        self.init(
            job: notification.job, token: notification.token.hex, headers: notification.headers,
            payload: notification.payload)
    }
}
