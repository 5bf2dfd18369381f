import NIOCore
import SalvoHTTP2

extension APNsResponse {
    /// APNs's answer as the HTTP/2 layer delivered it. APNs echoes the `apns-id` it was sent, so
    /// when the request carried one it is reused instead of parsed again; `apns-unique-id` is
    /// looked for only where it can be (`readsUniqueID`: the sandbox).
    init(_ response: HTTP2Response, sentAPNsID: APNsID?, readsUniqueID: Bool) {
        let apnsID =
            sentAPNsID
            ?? response.headers.firstBytes(name: "apns-id").flatMap { APNsID(headerValue: $0.readableBytesView) }
        let uniqueID =
            readsUniqueID
            ? response.headers.firstBytes(name: "apns-unique-id").flatMap { APNsID(headerValue: $0.readableBytesView) }
            : nil
        self.init(status: response.status, apnsID: apnsID, apnsUniqueID: uniqueID, body: response.body)
    }
}
