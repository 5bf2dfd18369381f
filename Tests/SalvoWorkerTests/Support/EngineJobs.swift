import SalvoAPNs
import SalvoMockAPNs

/// Job texts and predictions for engine tests. Tokens are ``Fixtures/tokenHex(_:)`` numbers:
/// campaigns use small numbers, per-user jobs numbers from 10,000,000 on, so they never collide.
enum EngineJobs {
    static let payload = #"{"aps":{"alert":{"title":"Salvo","body":"engine test"}}}"#

    static func campaign(id: String, tokens: Range<Int>) -> String {
        var text = #"{"id":""# + id + #"","app":"news","campaign_id":"spring","payload":"# + payload + #","tokens":["#
        text.reserveCapacity(tokens.count * 67 + 200)
        for n in tokens {
            if n > tokens.lowerBound { text += "," }
            text += "\"" + Fixtures.tokenHex(n) + "\""
        }
        return text + "]}"
    }

    static func perUser(id: String, token: Int) -> String {
        #"{"id":""# + id + #"","app":"news","token":""# + Fixtures.tokenHex(token) + #"","payload":"# + payload + "}"
    }

    static func perUserToken(_ n: Int) -> Int { 10_000_000 + n }

    /// The tokens among `tokens` the mock answers with a dead-token reason.
    static func invalid(_ tokens: some Sequence<Int>, fate: MockTokenFate) -> Set<String> {
        Set(tokens.map(Fixtures.tokenHex).filter { fate.outcome(for: try! DeviceToken(hex: $0)) != .valid })
    }
}
