import NIOCore
import SalvoAPNs

extension JobDecoder {
    /// Decodes one message of either kind: a job with `channel_id` is a ``BroadcastJob``, any other
    /// a device-token ``Job`` (exactly as ``decode(_:)`` reads it). The job keeps `message`'s
    /// storage alive.
    ///
    /// `readsRetry`: a job with a `retry` member is a hand-off the worker wrote back to this topic
    /// (per-user work handed off at a revoke or a drain), read as a ``RetryJob``; without it the
    /// member is ignored like any unknown one.
    package func decodeAny(_ message: ByteBuffer, readsRetry: Bool = false) -> Result<DecodedJob, JobRejection> {
        var fields = JobFields()
        return Result { () throws(JobRejection) -> DecodedJob in
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
                if fields.channelID != nil { return .broadcast(try self.assembleBroadcast(fields)) }
                if let retry = fields.retry {
                    let job = try self.assemble(&fields, message: message)
                    guard let attempt = retry.attempt, let dueAt = retry.dueAtMilliseconds else {
                        throw JobRejection(.invalidRetry, "a retry record needs retry.attempt and retry.due_at_ms")
                    }
                    return .retry(
                        RetryJob(job: job, attempt: attempt, dueAt: UTCTimestamp(millisecondsSince1970: dueAt)))
                }
                return .push(try self.assemble(&fields, message: message))
            } catch {
                var rejection = error
                rejection.jobID = rejection.jobID ?? fields.id
                rejection.app = rejection.app ?? fields.app
                throw rejection
            }
        }
    }

    /// A broadcast's rules (docs/jobs.md, "Broadcast jobs"); the first failure wins.
    func assembleBroadcast(_ fields: JobFields) throws(JobRejection) -> BroadcastJob {
        guard let id = fields.id else { throw Self.missing("id") }
        guard let appName = fields.app else { throw Self.missing("app") }
        guard let app = self.apps[appName] else {
            throw JobRejection(.unknownApp, "app \"\(appName)\" is not configured on this worker")
        }
        guard let text = fields.channelID, let channelID = APNsChannelID(text) else {
            throw JobRejection(.invalidField, "channel_id must be a channel id (standard base64, as APNs returned it)")
        }
        if fields.singleToken != nil || fields.tokens != nil {
            throw JobRejection(.conflictingFields, "a job has channel_id or token/tokens, not both")
        }
        if !fields.badges.isEmpty { throw JobRejection(.conflictingFields, "a broadcast has no per_token overrides") }
        if let pushType = fields.pushType, pushType != .liveactivity {
            throw JobRejection(.invalidPushType, "a broadcast's push_type is liveactivity, got \(pushType.rawValue)")
        }
        let bundleID: APNsTopic
        do {
            bundleID = try APNsTopic(app.profile.bundleID)
        } catch {
            throw JobRejection(error)
        }
        if let topic = fields.topic, topic != app.profile.bundleID,
            topic != app.profile.bundleID + ".push-type.liveactivity"
        {
            throw JobRejection(
                .invalidTopic, "a broadcast goes to its app's bundle id; topic \"\(topic.prefix(80))\" is another app's"
            )
        }
        if fields.collapseID != nil {
            throw JobRejection(.invalidCollapseID, "a broadcast carries no apns-collapse-id")
        }
        let expiration: APNsExpiration
        do {
            expiration =
                try fields.expiration.map { seconds throws(APNsError) in try APNsExpiration(secondsSince1970: seconds) }
                ?? .immediately
        } catch {
            throw JobRejection(error)
        }
        let payload = try self.payload(fields, pushType: nil)
        do {
            try APNsBroadcastRequest.checkPayload(payload)
        } catch {
            throw JobRejection(error)
        }
        let priority = fields.priority ?? .immediate
        let warnings = try LiveActivityPayload.check(payload.readableBytesView, kind: .broadcast, priority: priority)
        return BroadcastJob(
            id: id, app: appName, campaignID: fields.campaignID,
            environment: fields.environment ?? app.profile.environment,
            bundleID: bundleID, channelID: channelID, priority: priority, expiration: expiration, payload: payload,
            warnings: warnings)
    }
}
