import NIOCore
import SalvoAPNs
import SalvoHTTP2
import SalvoPrimitives

/// Turns a ``MockBroadcastJudge/Outcome`` into the HTTP/2 answer Apple sends: every answer
/// carries `apns-request-id` (echoed or generated); a create's 201 `apns-channel-id`; a
/// broadcast's 200 `apns-unique-id`; JSON bodies (read, list, errors) `content-type:
/// application/json`.
enum MockBroadcastAnswer {
    static func response(_ outcome: MockBroadcastJudge.Outcome, request: MockBroadcastRequest) -> HTTP2Response {
        var headers = HTTP2Headers()
        switch request.requestID {
        case .valid(let id): headers.add(name: "apns-request-id", value: id)
        case .absent, .invalid: headers.add(name: "apns-request-id", value: APNsID.random().string)
        }
        switch outcome {
        case .created(let channelID):
            headers.add(name: "apns-channel-id", value: channelID)
            return HTTP2Response(status: 201, headers: headers)
        case .read(let configuration):
            return self.json(200, configuration.encoded(), headers: headers)
        case .deleted:
            return HTTP2Response(status: 204, headers: headers)
        case .listed(let ids):
            let list = ids.map { JSONWriter.quoted($0) }.joined(separator: ",")
            return self.json(200, Array("{\"channels\":[\(list)]}".utf8), headers: headers)
        case .broadcast:
            headers.add(name: "apns-unique-id", value: APNsID.random().string)
            return HTTP2Response(status: 200, headers: headers)
        case .rejected(let reason):
            return self.json(reason.status ?? 500, APNsErrorBody(reason: reason).encoded(), headers: headers)
        }
    }

    private static func json(_ status: Int, _ body: [UInt8], headers: HTTP2Headers) -> HTTP2Response {
        var headers = headers
        headers.add(name: "content-type", value: "application/json")
        return HTTP2Response(status: status, headers: headers, body: ByteBuffer(bytes: body))
    }
}
