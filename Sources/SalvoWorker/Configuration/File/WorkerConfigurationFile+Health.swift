extension WorkerConfigurationFile {
    /// `health:` — when an APNs pool is judged unhealthy and how it probes (``PoolHealthConfiguration``).
    struct Health: Decodable, Sendable {
        var failureShare: Double?
        var minimumSamples, probeRequests: Int?
        var sampleWindow, initialProbeDelay, maximumProbeDelay: ConfigurationDuration?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case failureShare = "failure_share"
            case minimumSamples = "minimum_samples"
            case sampleWindow = "sample_window"
            case probeRequests = "probe_requests"
            case initialProbeDelay = "initial_probe_delay"
            case maximumProbeDelay = "max_probe_delay"
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.strictContainer(keyedBy: CodingKeys.self)
            failureShare = try container.decodeIfPresent(
                Double.self, forKey: .failureShare, within: ConfigurationBounds.failureShare)
            minimumSamples = try container.decodeIfPresent(
                Int.self, forKey: .minimumSamples, within: ConfigurationBounds.minimumSamples)
            sampleWindow = try container.decodeIfPresent(
                ConfigurationDuration.self, forKey: .sampleWindow, within: ConfigurationBounds.sampleWindow)
            probeRequests = try container.decodeIfPresent(
                Int.self, forKey: .probeRequests, within: ConfigurationBounds.probeRequests)
            initialProbeDelay = try container.decodeIfPresent(
                ConfigurationDuration.self, forKey: .initialProbeDelay, within: ConfigurationBounds.probeDelay)
            maximumProbeDelay = try container.decodeIfPresent(
                ConfigurationDuration.self, forKey: .maximumProbeDelay, within: ConfigurationBounds.probeDelay)
        }

        func apply(to configuration: inout PoolHealthConfiguration) {
            if let failureShare { configuration.failureShare = failureShare }
            if let minimumSamples { configuration.minimumSamples = minimumSamples }
            if let sampleWindow { configuration.sampleWindow = sampleWindow.value }
            if let probeRequests { configuration.probeRequests = probeRequests }
            if let initialProbeDelay { configuration.initialProbeDelay = initialProbeDelay.value }
            if let maximumProbeDelay { configuration.maximumProbeDelay = maximumProbeDelay.value }
        }
    }
}
