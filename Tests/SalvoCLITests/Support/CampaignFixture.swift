import Foundation
import SalvoAPNs
import SalvoLoadTest
import SalvoMockAPNs

/// Jobs for end-to-end runs, and what the mock must see because of them.
///
/// Tokens come from a seeded generator, so a run is reproducible; each token's answer is
/// predicted with the mock's own published function (`MockTokenFate`), so the test knows, before
/// anything is sent, which tokens must be delivered and which must come back as feedback.
struct CampaignFixture {
    struct Expected {
        var delivered: Set<String> = []
        /// Token → Apple's reason (`Unregistered`, `BadDeviceToken`).
        var feedback: [String: String] = [:]
    }

    var campaignLines: [String] = []
    var perUserLines: [String] = []
    var expected = Expected()
    private var generator: LoadTestRandom

    init(seed: UInt64) {
        generator = LoadTestRandom(seed: seed)
    }

    mutating func token() -> String {
        (0..<4).map { _ in
            let hex = String(generator.next(), radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }

    /// Records what the mock will answer for `token` under `fate`.
    private mutating func expect(_ token: String, fate: MockTokenFate) {
        switch fate.outcome(for: try! DeviceToken(hex: token)) {
        case .valid: expected.delivered.insert(token)
        case .unregistered: expected.feedback[token] = "Unregistered"
        case .badDeviceToken: expected.feedback[token] = "BadDeviceToken"
        }
    }

    /// `jobs` campaign jobs of `tokensPerJob` tokens each.
    mutating func addCampaign(id: String, jobs: Int, tokensPerJob: Int, app: String, fate: MockTokenFate) {
        for job in 0..<jobs {
            var tokens: [String] = []
            tokens.reserveCapacity(tokensPerJob)
            for _ in 0..<tokensPerJob {
                let token = token()
                expect(token, fate: fate)
                tokens.append(token)
            }
            let list = tokens.map { "\"\($0)\"" }.joined(separator: ",")
            campaignLines.append(
                #"{"id":"\#(id)-\#(job)","app":"\#(app)","campaign_id":"\#(id)","tokens":[\#(list)],"payload":{"aps":{"alert":{"title":"Sale","body":"Everything must go"}}}}"#
            )
        }
    }

    /// `count` per-user jobs of one token each.
    mutating func addPerUser(id: String, count: Int, app: String, fate: MockTokenFate) {
        for job in 0..<count {
            let token = token()
            expect(token, fate: fate)
            perUserLines.append(
                #"{"id":"\#(id)-\#(job)","app":"\#(app)","token":"\#(token)","payload":{"aps":{"alert":"You have a message","badge":\#(job % 100)}}}"#
            )
        }
    }

    static func write(_ lines: [String], to url: URL) throws {
        try (lines.joined(separator: "\n") + "\n").write(to: url, atomically: true, encoding: .utf8)
    }
}
