import SalvoAPNs

extension JobDecoder {
    /// What the decoder accepts. Values are checked once, by ``validate()``.
    package struct Configuration: Sendable {
        /// The apps jobs may name, by the name used in a job's `app` field. A job naming any other
        /// app is rejected (`unknown_app`).
        package var apps: [String: AppProfile]
        /// Largest message accepted, in bytes; larger ones are rejected without being read
        /// (`job_too_large`). A dead letter carries the whole job, so the limit leaves room under
        /// the producer's `message.max.bytes` (docs/configuration.md). About 14,600 tokens of 64 hex
        /// characters fit. Default: 983,616 (librdkafka's 1,000,000 minus 16 KiB).
        package var maximumJobBytes: Int
        /// Most tokens one job may carry (`too_many_tokens`). Default: 500,000.
        package var maximumTokens: Int

        package init(apps: [String: AppProfile], maximumJobBytes: Int = 983_616, maximumTokens: Int = 500_000) {
            self.apps = apps
            self.maximumJobBytes = maximumJobBytes
            self.maximumTokens = maximumTokens
        }

        /// Throws when a limit is outside its range (naming its `limits.…` key), an app name is
        /// empty, or a bundle id cannot be a topic.
        package func validate() throws(SalvoWorkerError) {
            try ConfigurationBounds.maximumJobBytes.check(maximumJobBytes, key: "limits.max_job_bytes")
            try ConfigurationBounds.maximumTokens.check(maximumTokens, key: "limits.max_tokens")
            for (name, profile) in apps {
                guard !name.isEmpty else { throw .invalidConfiguration("app names must not be empty") }
                do {
                    _ = try APNsTopic(profile.bundleID)
                } catch {
                    throw .invalidConfiguration(
                        "app \"\(name)\": bundle id \"\(profile.bundleID)\" is not a valid topic")
                }
            }
        }
    }
}
