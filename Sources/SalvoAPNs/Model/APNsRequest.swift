import NIOCore

/// One notification, validated and ready to send: the target token, the job's shared headers, the
/// optional apns-id and the payload bytes.
///
/// The payload is opaque: it is checked for size and for being shaped like a JSON object
/// (`{` … `}` around optional whitespace), never decoded or re-encoded. A campaign shares one
/// payload buffer between all its requests (ByteBuffer slices share storage).
public struct APNsRequest: Sendable {
    public let token: DeviceToken
    public let headers: APNsRequestHeaders
    /// Nil lets APNs assign one (it is then only known from the response).
    public let apnsID: APNsID?
    public let payload: ByteBuffer

    /// `POST` as bytes, the only method APNs accepts.
    public static let method: [UInt8] = Array("POST".utf8)

    /// Checks the payload against the push type's rules (empty → `PayloadEmpty`, over 4096 bytes
    /// or 5120 for VoIP → `PayloadTooLarge`, not an object → refused before sending).
    public init(
        token: DeviceToken, headers: APNsRequestHeaders, apnsID: APNsID? = nil, payload: ByteBuffer
    ) throws(APNsError) {
        try Self.checkPayload(payload.readableBytesView, pushType: headers.pushType)
        self.token = token
        self.headers = headers
        self.apnsID = apnsID
        self.payload = payload
    }

    /// For a payload whose shape was already checked (``checkPayload(_:pushType:)`` once per job,
    /// not once per device token): only the size is checked again, which is O(1) and may have
    /// changed if a per-token value was spliced into the object.
    public init(
        token: DeviceToken, headers: APNsRequestHeaders, apnsID: APNsID? = nil, objectPayload payload: ByteBuffer
    ) throws(APNsError) {
        try Self.checkSize(payload.readableBytes, pushType: headers.pushType)
        self.token = token
        self.headers = headers
        self.apnsID = apnsID
        self.payload = payload
    }

    /// Convenience for a single notification: validates the headers and the payload at once.
    public init(
        token: DeviceToken,
        topic: APNsTopic,
        pushType: APNsPushType,
        priority: APNsPriority? = nil,
        expiration: APNsExpiration? = nil,
        collapseID: APNsCollapseID? = nil,
        apnsID: APNsID? = nil,
        payload: ByteBuffer
    ) throws(APNsError) {
        let headers = try APNsRequestHeaders(
            topic: topic,
            pushType: pushType,
            priority: priority,
            expiration: expiration,
            collapseID: collapseID
        )
        try self.init(token: token, headers: headers, apnsID: apnsID, payload: payload)
    }

    /// The `:path`, `/3/device/<token>`.
    public var path: [UInt8] { token.path }

    /// The request's header fields in sending order: the job's shared fields, then `apns-id` and
    /// `authorization` when given (token authentication; nil for certificate connections).
    public func headerFields(authorization: APNsAuthorization?) -> [APNsHeaderField] {
        var fields = headers.fields
        fields.reserveCapacity(fields.count + 2)
        if let apnsID {
            fields.append(APNsHeaderField(name: APNsHeaderField.Name.apnsID, value: apnsID.headerValue))
        }
        if let authorization {
            fields.append(APNsHeaderField(name: APNsHeaderField.Name.authorization, value: authorization.headerValue))
        }
        return fields
    }

    /// The payload rules, usable on their own (for example to check a job's payload once before
    /// fanning it out).
    ///
    /// Inlinable so the caller's module specialises the one generic step (getting at the bytes
    /// as a buffer): unspecialised across the module boundary, walking a `ByteBufferView` through
    /// protocol witnesses cost ~3 % of a per-user push's CPU in the worker.
    @inlinable
    public static func checkPayload(
        _ payload: some BidirectionalCollection<UInt8>, pushType: APNsPushType
    ) throws(APNsError) {
        let check = { (bytes: UnsafeRawBufferPointer) -> APNsError? in
            do throws(APNsError) {
                try Self.checkPayload(bytes: bytes, pushType: pushType)
                return nil
            } catch {
                return error
            }
        }
        let failure =
            payload.withContiguousStorageIfAvailable { check(UnsafeRawBufferPointer($0)) }
            ?? Array(payload).withUnsafeBytes(check)
        if let failure { throw failure }
    }

    @usableFromInline
    static func checkPayload(bytes payload: UnsafeRawBufferPointer, pushType: APNsPushType) throws(APNsError) {
        try checkSize(payload.count, pushType: pushType)
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        guard payload.first(where: { !isSpace($0) }) == UInt8(ascii: "{"),
            payload.last(where: { !isSpace($0) }) == UInt8(ascii: "}")
        else {
            throw APNsError(code: .payloadNotJSONObject, message: "payload must be a JSON object ({ … })")
        }
    }

    private static func checkSize(_ size: Int, pushType: APNsPushType) throws(APNsError) {
        if size == 0 {
            throw APNsError(code: .payloadEmpty, message: "payload is empty", reason: .payloadEmpty)
        }
        if size > pushType.maximumPayloadSize {
            throw APNsError(
                code: .payloadTooLarge,
                message: "payload has \(size) bytes; \(pushType) pushes allow at most \(pushType.maximumPayloadSize)",
                reason: .payloadTooLarge
            )
        }
    }
}
