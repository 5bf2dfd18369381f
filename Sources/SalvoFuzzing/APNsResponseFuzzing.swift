import NIOCore
import SalvoAPNs

/// APNs answers as the client reads them. Input: two bytes of status (big-endian, taken modulo
/// 600), one byte giving the length of an `apns-id` header value, that value, then the body.
///
/// Besides not crashing: a parsed error body, written again the way APNs writes it, parses back to
/// the same body; an `apns-id` that parses prints as text that parses back to the same id.
enum APNsResponseFuzzing {
    static func run(_ bytes: [UInt8]) throws(FuzzFinding) {
        guard bytes.count >= 3 else { return }
        let status = (Int(bytes[0]) << 8 | Int(bytes[1])) % 600
        let idLength = min(Int(bytes[2]), bytes.count - 3)
        let idValue = Array(bytes[3..<(3 + idLength)])
        let body = Array(bytes[(3 + idLength)...])

        let response = APNsResponse(
            status: status, headers: [APNsHeaderField(name: Array("apns-id".utf8), value: idValue)],
            body: ByteBuffer(bytes: body))
        _ = response.retryPolicy
        _ = response.producesFeedback
        _ = response.reason?.string

        if let parsed = APNsErrorBody(parsing: body) {
            guard let again = APNsErrorBody(parsing: parsed.encoded()), again == parsed else {
                throw FuzzFinding(
                    "error body \(parsed) does not survive its own encoding: \(String(decoding: parsed.encoded(), as: UTF8.self))"
                )
            }
        }
        if let id = APNsID(headerValue: idValue) {
            guard APNsID(headerValue: Array(id.description.utf8)) == id else {
                throw FuzzFinding("apns-id \(id) does not parse back from its text")
            }
        }
    }
}
