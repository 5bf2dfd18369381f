import NIOCore
import SalvoAPNs

/// A decoded, validated job: one payload and one set of headers for one or many device tokens.
///
/// Everything that holds for the whole job was checked once when it was decoded (app, headers,
/// payload size, per-token splices), so fanning out a 100,000-token campaign only builds one
/// ``PushNotification`` per token.
///
/// A class, not a struct: a job is handed from the decoding task to the core, queued, and read
/// for every one of its notifications, and each copy of a struct of ten references costs ten
/// retains and ten releases. Immutable, hence `Sendable`.
package final class Job: Sendable {
    package let id: String
    package let app: String
    package let campaignID: String?
    /// The job's `environment`, or the app's when the job has none.
    package let environment: APNsEnvironment.Kind
    /// Topic, push type, priority, expiration and collapse id, validated and encoded once.
    package let headers: APNsRequestHeaders
    /// The payload's exact bytes: a slice of the message for `payload`, the unescaped text for
    /// `payload_raw`. Every token without a per-token override sends these bytes unchanged.
    package let payload: ByteBuffer
    /// The well-formed tokens, in message order.
    package let tokens: JobTokenList
    /// Per-token badge overrides (`per_token`). Overrides for tokens the job does not list are
    /// kept but never used.
    package let badges: [DeviceToken: Int]
    /// Tokens of `tokens` that are not well formed; each is dead-lettered, the rest proceed.
    package let rejectedTokens: [TokenRejection]
    /// Where badges are spliced; nil when the job has no overrides.
    let badgeSplice: BadgeSplice?
    /// For `liveactivity` jobs: what devices would ignore in the payload (for
    /// `salvo_live_activity_warnings_total`); empty otherwise.
    package let liveActivityWarnings: LiveActivityWarnings

    init(
        id: String,
        app: String,
        campaignID: String?,
        environment: APNsEnvironment.Kind,
        headers: APNsRequestHeaders,
        payload: ByteBuffer,
        tokens: JobTokenList,
        badges: [DeviceToken: Int],
        rejectedTokens: [TokenRejection],
        badgeSplice: BadgeSplice?,
        liveActivityWarnings: LiveActivityWarnings = []
    ) {
        self.id = id
        self.app = app
        self.campaignID = campaignID
        self.environment = environment
        self.headers = headers
        self.payload = payload
        self.tokens = tokens
        self.badges = badges
        self.rejectedTokens = rejectedTokens
        self.badgeSplice = badgeSplice
        self.liveActivityWarnings = liveActivityWarnings
    }

    /// How many notifications the job fans out to (its well-formed tokens; duplicates included).
    package var notificationCount: Int { tokens.count }

    /// What every notification of this job, read from `source`, carries about it.
    /// - Parameter ledgerGeneration: Default: 0 (not tracked by a ledger).
    package func reference(source: SourcePosition, ledgerGeneration: JobLedger.Generation = 0) -> JobReference {
        JobReference(
            id: id, app: app, campaignID: campaignID, environment: environment, source: source,
            ledgerGeneration: ledgerGeneration)
    }

    /// The payload `token` receives: the shared bytes, or a copy with its badge spliced in.
    package func payload(for token: DeviceToken) -> ByteBuffer {
        splicedPayload(for: token) ?? payload
    }

    /// `token`'s own payload when the job overrides its badge; nil when it gets the job's.
    func splicedPayload(for token: DeviceToken) -> ByteBuffer? {
        guard let badgeSplice, let badge = badges[token] else { return nil }
        return badgeSplice.apply(badge: badge, to: payload)
    }

    /// The part every notification of this job shares, for ``notification(at:shared:attempt:)``.
    package func shared(_ reference: JobReference) -> PushNotification.Shared {
        PushNotification.Shared(job: reference, headers: headers, payload: payload, origin: self)
    }

    /// The notification for the token at `index`.
    /// - Parameter attempt: Default: 1; records of the retry topic continue their count.
    package func notification(at index: Int, job reference: JobReference, attempt: Int = 1) -> PushNotification {
        notification(at: index, shared: shared(reference), attempt: attempt)
    }

    /// The notification for the token at `index`, sharing `shared` (built once for the job) with
    /// the job's other notifications.
    package func notification(at index: Int, shared: PushNotification.Shared, attempt: Int = 1) -> PushNotification {
        let token = tokens[index]
        return PushNotification(
            shared: shared, token: token, ownPayload: splicedPayload(for: token),
            index: Int32(truncatingIfNeeded: index), attempt: attempt)
    }
}
