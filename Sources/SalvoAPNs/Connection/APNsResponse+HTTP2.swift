import NIOCore
import SalvoHTTP2

extension APNsResponse {
    /// APNs's answer as the HTTP/2 layer delivered it. APNs echoes the `apns-id` it was sent, so
    /// when the request carried one it is reused instead of parsed again.
    init(_ response: HTTP2Response, sentAPNsID: APNsID?) {
        let apnsID = sentAPNsID ?? response.headers.firstBytes(name: "apns-id").flatMap { APNsID(headerValue: $0.readableBytesView) }
        let uniqueID = response.headers.firstBytes(name: "apns-unique-id").flatMap { APNsID(headerValue: $0.readableBytesView) }
        self.init(status: response.status, apnsID: apnsID, apnsUniqueID: uniqueID, body: response.body)
    }
}
