import NIOCore
import SalvoAPNs

/// One notification in a dead letter. The token is text because a token the decoder refused is
/// not a ``DeviceToken``; it is written exactly as it was received.
package struct DeadLetterNotification: Sendable, Equatable {
    package var job: JobReference
    package var token: String
    package var headers: APNsRequestHeaders
    package var payload: ByteBuffer

    package init(job: JobReference, token: String, headers: APNsRequestHeaders, payload: ByteBuffer) {
        self.job = job
        self.token = token
        self.headers = headers
        self.payload = payload
    }

    package init(_ notification: PushNotification) {
        self.init(
            job: notification.job, token: notification.token.hex, headers: notification.headers,
            payload: notification.payload)
    }
}
