import NIOCore
import SalvoAPNs

/// Turns a Kafka message into a ``Job``, or into the ``JobRejection`` that is dead-lettered
/// instead. The payload's bytes are sliced out of the message, never decoded and re-encoded;
/// tokens are validated in place (docs/jobs.md has the schema and every rule applied here).
package struct JobDecoder: Sendable {
    package let configuration: Configuration
    /// `configuration.apps`, each with the headers of an alert with every header field defaulted,
    /// the common shape of a per-user push, built once. Jobs of that shape share them: no header
    /// allocations per job, and the connection's encoder recognizes its cached header block by
    /// identity. One lookup per job finds both.
    let apps: AppTable<(profile: AppProfile, defaultAlertHeaders: APNsRequestHeaders?)>

    package init(configuration: Configuration) throws(SalvoWorkerError) {
        try configuration.validate()
        self.configuration = configuration
        self.apps = AppTable(
            configuration.apps.mapValues { app in
                (
                    app,
                    try? APNsRequestHeaders(
                        topic: APNsPushType.alert.topic(forBundleID: app.bundleID), pushType: .alert)
                )
            })
    }

    /// Decodes one message. The job keeps `message`'s storage alive (payload and tokens point into it).
    package func decode(_ message: ByteBuffer) -> Result<Job, JobRejection> {
        var fields = JobFields()
        return Result { () throws(JobRejection) in try decode(message, into: &fields, readsRetry: false) }
    }

    /// Decodes a message, leaving what was read in `fields` (the retry decoder reads `retry` from
    /// it). Rejections carry the job's id and app when they were read before the failure.
    func decode(_ message: ByteBuffer, into fields: inout JobFields, readsRetry: Bool) throws(JobRejection) -> Job {
        do throws(JobRejection) {
            guard message.readableBytes <= configuration.maximumJobBytes else {
                throw JobRejection(
                    .jobTooLarge,
                    "the message has \(message.readableBytes) bytes; at most \(configuration.maximumJobBytes) are accepted"
                )
            }
            let reader = JobFieldReader(
                message: message, maximumTokens: configuration.maximumTokens, readsRetry: readsRetry)
            try reader.read(into: &fields)
            return try assemble(&fields, message: message)
        } catch {
            var rejection = error
            rejection.jobID = rejection.jobID ?? fields.id
            rejection.app = rejection.app ?? fields.app
            throw rejection
        }
    }

    /// `inout` only so that the fields are lent, not copied: passed by value, the optimiser copied
    /// and destroyed the whole struct once per job (~600 instructions of a per-user push).
    func assemble(_ fields: inout JobFields, message: ByteBuffer) throws(JobRejection) -> Job {
        if fields.channelID != nil {
            // Only ``decodeAny(_:)`` returns broadcasts; a caller of `decode` cannot send one.
            throw JobRejection(
                .conflictingFields, "channel_id makes this a broadcast job, which this path does not send")
        }
        guard let id = fields.id else { throw Self.missing("id") }
        guard let appName = fields.app else { throw Self.missing("app") }
        guard let app = apps[appName] else {
            throw JobRejection(.unknownApp, "app \"\(appName)\" is not configured on this worker")
        }
        let tokens = try tokens(fields, message: message)
        let headers = try headers(fields, app: app.profile, defaultAlertHeaders: app.defaultAlertHeaders)
        let payload = try payload(fields, pushType: headers.pushType)
        let splice = try badgeSplice(fields, payload: payload, pushType: headers.pushType)
        var warnings: LiveActivityWarnings = []
        if headers.pushType == .liveactivity {
            warnings = try LiveActivityPayload.check(
                payload.readableBytesView, kind: .device, priority: headers.priority)
        }
        return Job(
            id: id,
            app: appName,
            campaignID: fields.campaignID,
            environment: fields.environment ?? app.profile.environment,
            headers: headers,
            payload: payload,
            tokens: tokens,
            badges: fields.badges,
            rejectedTokens: fields.tokenRejections,
            badgeSplice: splice,
            liveActivityWarnings: warnings
        )
    }

    private func tokens(_ fields: JobFields, message: ByteBuffer) throws(JobRejection) -> JobTokenList {
        switch (fields.singleToken, fields.tokens) {
        case (.some, .some):
            throw JobRejection(.conflictingFields, "a job has token or tokens, not both")
        case (nil, nil):
            throw Self.missing("token or tokens")
        case (.some(.failure(let rejection)), nil):
            throw rejection
        case (.some(.success(let range)), nil):
            var tokens = JobTokenList(message: message)
            tokens.append(range)
            return tokens
        case (nil, .some(let tokens)):
            if !tokens.isEmpty { return tokens }
            guard let first = fields.tokenRejections.first else {
                throw JobRejection(.emptyTokenList, "tokens must hold at least one token")
            }
            throw JobRejection(
                .invalidToken, "none of the \(fields.tokenRejections.count) tokens is valid; first: \(first.message)")
        }
    }

    private func headers(
        _ fields: JobFields, app: AppProfile, defaultAlertHeaders: APNsRequestHeaders?
    ) throws(JobRejection) -> APNsRequestHeaders {
        let pushType = fields.pushType ?? .alert
        if pushType == .alert, fields.topic == nil, fields.priority == nil, fields.expiration == nil,
            fields.collapseID == nil,
            let shared = defaultAlertHeaders
        {
            return shared
        }
        if fields.topic == nil, pushType == .mdm {
            throw Self.missing("topic (mdm pushes go to the MDM push topic, which no bundle id implies)")
        }
        do throws(APNsError) {
            let topic: APNsTopic
            if let text = fields.topic {
                topic = try APNsTopic(text)
            } else {
                topic = try pushType.topic(forBundleID: app.bundleID)
            }
            return try APNsRequestHeaders(
                topic: topic,
                pushType: pushType,
                priority: fields.priority,
                expiration: try fields.expiration.map { seconds throws(APNsError) in
                    try APNsExpiration(secondsSince1970: seconds)
                },
                collapseID: try fields.collapseID.map { text throws(APNsError) in try APNsCollapseID(text) }
            )
        } catch {
            throw JobRejection(error)
        }
    }

    /// - Parameter pushType: whose size rule applies; nil leaves size and shape to the caller
    ///   (broadcasts: 5,120 bytes whatever the push type).
    func payload(_ fields: JobFields, pushType: APNsPushType?) throws(JobRejection) -> ByteBuffer {
        let payload: ByteBuffer
        switch (fields.payload, fields.payloadRaw) {
        case (.some, .some):
            throw JobRejection(.conflictingFields, "a job has payload or payload_raw, not both")
        case (nil, nil):
            throw Self.missing("payload or payload_raw")
        case (.some(let object), nil):
            payload = object
        case (nil, .some(let text)):
            payload = try Self.rawPayloadObject(text)
        }
        guard let pushType else { return payload }
        do throws(APNsError) {
            try APNsRequest.checkPayload(payload.readableBytesView, pushType: pushType)
        } catch {
            throw JobRejection(error)
        }
        return payload
    }

    /// `payload_raw` must hold exactly one JSON object; surrounding whitespace is dropped.
    private static func rawPayloadObject(_ text: ByteBuffer) throws(JobRejection) -> ByteBuffer {
        do throws(JobRejection) {
            let range = try JSONScanner.withScanner(over: text) { scanner throws(JobRejection) in
                guard scanner.peekKind() == .object else {
                    throw JobRejection(.invalidPayload, "payload_raw must hold a JSON object")
                }
                let range = try scanner.skipValue()
                try scanner.expectEnd()
                return range
            }
            return text.getSlice(at: text.readerIndex + range.lowerBound, length: range.count) ?? text
        } catch {
            throw JobRejection(.invalidPayload, "payload_raw is not one JSON object: \(error.message)")
        }
    }

    private func badgeSplice(
        _ fields: JobFields, payload: ByteBuffer, pushType: APNsPushType
    ) throws(JobRejection) -> BadgeSplice? {
        guard let largest = fields.badges.values.max() else { return nil }
        let splice = try BadgeSplice.locate(in: payload)
        // More digits never make a payload smaller, so the largest badge bounds every variant.
        let size = splice.splicedSize(payloadSize: payload.readableBytes, digits: String(largest).utf8.count)
        guard size <= pushType.maximumPayloadSize else {
            throw JobRejection(
                .payloadTooLarge,
                "with per-token badge \(largest) the payload has \(size) bytes; \(pushType) pushes allow at most \(pushType.maximumPayloadSize)"
            )
        }
        return splice
    }

    static func missing(_ field: String) -> JobRejection {
        JobRejection(.missingField, "missing \(field)")
    }
}
