import SalvoAPNs
import SalvoLoadTest
import SalvoMockAPNs

/// Jobs built by hand, for measurement and report tests.
enum TestJobs {
    static func token(_ number: Int) -> DeviceToken {
        let hex = String(number, radix: 16)
        return try! DeviceToken(hex: String(repeating: "0", count: 64 - hex.count) + hex)
    }

    static func job(
        id: String, lane: LoadTestLane = .priority, scheduledAt: Int64, tokens: [(Int, MockTokenFate.Outcome)],
        deadLetterReason: String? = nil, duplicate: Bool = false
    ) -> LoadTestJob {
        LoadTestJob(
            id: id, lane: lane, scheduledAtMilliseconds: scheduledAt, offsetNanoseconds: 0, value: [],
            tokens: tokens.map { LoadTestTokenSource.Choice(token: token($0.0), fate: $0.1) },
            deadLetterReason: deadLetterReason, isDuplicate: duplicate)
    }
}
