import NIOCore
import SalvoAPNs
import SalvoHTTP2

/// Builds answers the way APNs writes them, with the parts that never change computed once:
/// every documented reason's JSON body is encoded at start-up, so an error answer costs a header
/// block and a buffer reference, and a 200 only its `apns-id`.
struct MockResponses: Sendable {
    private let bodies: [APNsReason: ByteBuffer]
    private let includesUniqueID: Bool

    init(environment: APNsEnvironment.Kind) {
        self.includesUniqueID = environment == .sandbox
        self.bodies = Dictionary(
            uniqueKeysWithValues: APNsReason.allDocumented.map {
                ($0, ByteBuffer(bytes: APNsErrorBody(reason: $0).encoded()))
            })
    }

    /// 200 with `apns-id`, and in sandbox a fresh `apns-unique-id`.
    func accepted(apnsID: APNsID, random: inout MockRandom) -> HTTP2Response {
        var headers = HTTP2Headers(minimumCapacity: self.includesUniqueID ? 128 : 64)
        Self.add(apnsID, named: "apns-id", to: &headers)
        if self.includesUniqueID {
            Self.add(APNsID.random(using: &random), named: "apns-unique-id", to: &headers)
        }
        return HTTP2Response(status: 200, headers: headers)
    }

    /// 200 echoing an `apns-id` header exactly as sent (the no-validation fast path).
    func accepted(echoing apnsID: ByteBuffer, random: inout MockRandom) -> HTTP2Response {
        var headers = HTTP2Headers(minimumCapacity: self.includesUniqueID ? 128 : 64)
        headers.add(name: "apns-id", value: apnsID)
        if self.includesUniqueID {
            Self.add(APNsID.random(using: &random), named: "apns-unique-id", to: &headers)
        }
        return HTTP2Response(status: 200, headers: headers)
    }

    /// The reason's status, `content-type: application/json` and `{"reason":…}` (and `"timestamp"` when given, for 410).
    func rejected(_ reason: APNsReason, apnsID: APNsID, timestampMilliseconds: Int64?) -> HTTP2Response {
        var headers = HTTP2Headers(minimumCapacity: 96)
        Self.add(apnsID, named: "apns-id", to: &headers)
        // Apple's sample error answers carry it; clients that dispatch on it need it.
        headers.add(name: "content-type", value: "application/json")
        let body: ByteBuffer
        if timestampMilliseconds == nil, let cached = self.bodies[reason] {
            body = cached
        } else {
            body = ByteBuffer(
                bytes: APNsErrorBody(reason: reason, timestampMilliseconds: timestampMilliseconds).encoded())
        }
        return HTTP2Response(status: reason.status ?? 500, headers: headers, body: body)
    }

    /// Writes the id's text straight into the header block (no String per answer).
    private static func add(_ id: APNsID, named name: StaticString, to headers: inout HTTP2Headers) {
        withUnsafeTemporaryAllocation(byteCount: APNsID.textLength, alignment: 1) { text in
            id.write(into: text)
            headers.add(
                name: UnsafeRawBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount),
                value: UnsafeRawBufferPointer(text))
        }
    }
}
