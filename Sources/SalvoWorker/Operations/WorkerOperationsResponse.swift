import NIOHTTP1

/// One answer of the operations listener, built without touching the channel so routes are
/// plain functions tests can call.
struct WorkerOperationsResponse: Equatable, Sendable {
    var status: HTTPResponseStatus
    var contentType: String
    var body: [UInt8]
    /// The `allow` header of a 405.
    var allow: String?

    static func text(_ status: HTTPResponseStatus, _ text: String, allow: String? = nil) -> Self {
        Self(status: status, contentType: "text/plain; charset=utf-8", body: Array(text.utf8), allow: allow)
    }
}
