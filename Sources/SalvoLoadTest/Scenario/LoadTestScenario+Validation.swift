import SalvoAPNs
import SalvoMockAPNs

extension LoadTestScenario {
    /// The largest job the generator produces: the worker's default `limits.max_job_bytes`
    /// (Kafka's default `message.max.bytes` less the dead letter's 16 KiB of headroom). A 64-hex
    /// token takes 67 bytes in `tokens`, so a campaign job holds at most about 14,600 tokens.
    public static let maximumJobBytes = 983_616

    /// The size of a campaign job of `tokens` tokens (ids and members included, generously).
    static func campaignJobBytes(tokens: Int, payloadBytes: Int) -> Int {
        tokens * 67 + payloadBytes + 256
    }
}

extension LoadTestScenario.Phase {
    func violations(payloadBytes: Int) -> [String] {
        var problems: [String] = []
        if !(durationSeconds > 0) { problems.append("duration_seconds must be > 0") }
        if !(rate >= 0) { problems.append("rate must be ≥ 0") }
        if let rampFrom, !(rampFrom >= 0) { problems.append("ramp_from must be ≥ 0") }
        if rate == 0 && (rampFrom ?? 0) == 0 && campaigns.isEmpty {
            problems.append("sends nothing: give a rate, a ramp_from or a campaign")
        }
        let names = campaigns.compactMap(\.name)
        if Set(names).count < names.count { problems.append("campaigns: a name is given twice in one phase") }
        for campaign in campaigns {
            if campaign.tokensPerJob < 1 {
                problems.append("campaign.tokens_per_job must be ≥ 1")
            } else if LoadTestScenario.campaignJobBytes(tokens: campaign.tokensPerJob, payloadBytes: payloadBytes)
                > LoadTestScenario.maximumJobBytes
            {
                problems.append(
                    "campaign.tokens_per_job \(campaign.tokensPerJob) makes jobs over the worker's 983,616-byte job limit (at most ~14,600 tokens)"
                )
            }
            if !(campaign.everySeconds > 0) { problems.append("campaign.every_seconds must be > 0") }
            if let name = campaign.name, !Self.isValidName(name) {
                problems.append("campaign.name \"\(name)\" must be 1–64 letters, digits, '-', '_' or '.'")
            }
        }
        return problems
    }
}

extension LoadTestScenario.Phase {
    /// Campaign names become part of a campaign id, so they keep to characters every tool shows plainly.
    static func isValidName(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count)
            && name.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || byte == 0x2D
                    || byte == 0x5F || byte == 0x2E
            }
    }
}

extension LoadTestScenario.Mix {
    func violations(mockTokens: MockTokenFate) -> [String] {
        var problems: [String] = []
        for (key, value) in [
            ("unregistered", unregistered), ("bad_device_token", badDeviceToken),
            ("duplicate_jobs", duplicateJobs), ("bad_jobs", badJobs), ("broadcasts", broadcasts),
        ]
        where !(0...1).contains(value) {
            problems.append("mix.\(key) must be 0…1")
        }
        if broadcasts > 0 && broadcastChannels.isEmpty {
            problems.append("mix.broadcasts needs mix.broadcast_channels (create them with salvo channels create)")
        }
        for channel in broadcastChannels where APNsChannelID(channel) == nil {
            problems.append("mix.broadcast_channels: \(channel) is not a channel id (standard base64)")
        }
        if unregistered + badDeviceToken > 1 { problems.append("mix.unregistered + mix.bad_device_token must be ≤ 1") }
        // A fate the mock never gives cannot be chosen: the load would silently lack its faults.
        if unregistered > 0 && mockTokens.unregistered <= 0 {
            problems.append("mix.unregistered needs a mock scenario whose tokens.unregistered is > 0")
        }
        if badDeviceToken > 0 && mockTokens.badDeviceToken <= 0 {
            problems.append("mix.bad_device_token needs a mock scenario whose tokens.bad_device_token is > 0")
        }
        if unregistered < 1 && badDeviceToken < 1 && mockTokens.unregistered + mockTokens.badDeviceToken >= 1 {
            problems.append("the mock scenario judges every token invalid, so no valid token can be chosen")
        }
        return problems
    }
}
