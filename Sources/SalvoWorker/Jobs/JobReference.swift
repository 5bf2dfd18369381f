import SalvoAPNs

/// What every notification of a job carries about the job: enough to write its feedback events,
/// dead letters and retry records, and to find its ledger entry. Strings are shared, not copied,
/// between the notifications of a campaign.
package struct JobReference: Sendable, Hashable {
    /// The job's `id`.
    package var id: String
    /// The app (credential) name.
    package var app: String
    package var campaignID: String?
    package var environment: APNsEnvironment.Kind
    /// The Kafka record the notification came from (a job, or a retry record).
    package var source: SourcePosition
    /// The ledger entry's ``JobLedger/Generation`` when the job was opened, so an outcome that
    /// outlives a revocation of its partition is not counted against the job's next opening.
    /// Not part of any record the worker writes.
    package var ledgerGeneration: JobLedger.Generation

    package init(
        id: String, app: String, campaignID: String? = nil, environment: APNsEnvironment.Kind, source: SourcePosition,
        ledgerGeneration: JobLedger.Generation = 0
    ) {
        self.id = id
        self.app = app
        self.campaignID = campaignID
        self.environment = environment
        self.source = source
        self.ledgerGeneration = ledgerGeneration
    }
}
