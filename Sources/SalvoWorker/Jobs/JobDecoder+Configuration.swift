import SalvoAPNs

extension JobDecoder {
    /// What the decoder accepts. Values are checked once, by ``validate()``.
    public struct Configuration: Sendable {
        /// The apps jobs may name, by the name used in a job's `app` field. A job naming any other
        /// app is rejected (`unknown_app`).
        public var apps: [String: AppProfile]
        /// Largest message accepted, in bytes; larger ones are rejected without being read
        /// (`job_too_large`). 100,000 tokens of 64 hex characters take about 6.7 MB.
        /// Default: 16 MiB.
        public var maximumJobBytes: Int
        /// Most tokens one job may carry (`too_many_tokens`). Default: 500,000.
        public var maximumTokens: Int

        public init(apps: [String: AppProfile], maximumJobBytes: Int = 16 << 20, maximumTokens: Int = 500_000) {
            self.apps = apps
            self.maximumJobBytes = maximumJobBytes
            self.maximumTokens = maximumTokens
        }

        /// Throws when a limit is not positive, an app name is empty, or a bundle id cannot be a topic.
        public func validate() throws(SalvoWorkerError) {
            guard maximumJobBytes > 0, maximumJobBytes <= Int(UInt32.max) else {
                throw .invalidConfiguration("maximumJobBytes must be 1…\(UInt32.max), got \(maximumJobBytes)")
            }
            guard maximumTokens > 0 else {
                throw .invalidConfiguration("maximumTokens must be positive, got \(maximumTokens)")
            }
            for (name, profile) in apps {
                guard !name.isEmpty else { throw .invalidConfiguration("app names must not be empty") }
                do {
                    _ = try APNsTopic(profile.bundleID)
                } catch {
                    throw .invalidConfiguration("app \"\(name)\": bundle id \"\(profile.bundleID)\" is not a valid topic")
                }
            }
        }
    }
}
