import NIOCore
import SalvoAPNs

@testable import SalvoWorker

/// Shared inputs: a decoder knowing two apps, deterministic tokens, job text builders.
enum Fixtures {
    static let apps: [String: AppProfile] = [
        "news": AppProfile(bundleID: "com.example.news"),
        "chat": AppProfile(bundleID: "com.example.chat", environment: .sandbox),
    ]

    static let decoder = try! JobDecoder(configuration: JobDecoder.Configuration(apps: apps))

    static let source = SourcePosition(topic: "salvo.jobs", partition: 3, offset: 42)

    /// The `n`th test token: 64 lowercase hex characters, distinct for distinct `n`.
    static func tokenHex(_ n: Int) -> String {
        let digits = String(UInt64(n), radix: 16)
        return String(repeating: "0", count: 64 - digits.count) + digits
    }

    static func token(_ n: Int) -> DeviceToken {
        try! DeviceToken(hex: tokenHex(n))
    }

    static func decode(_ json: String) -> Result<Job, JobRejection> {
        decoder.decode(ByteBuffer(string: json))
    }

    static func job(_ json: String) throws -> Job {
        try decode(json).get()
    }

    /// A campaign job text with `count` tokens.
    static func campaignJSON(count: Int, payload: String = #"{"aps":{"alert":"Sale!"}}"#) -> String {
        var text = #"{"id":"campaign-1","app":"news","campaign_id":"spring","payload":"# + payload + #","tokens":["#
        text.reserveCapacity(count * 67 + 100)
        for n in 0..<count {
            if n > 0 { text += "," }
            text += "\"" + tokenHex(n) + "\""
        }
        return text + "]}"
    }

    static func text(_ buffer: ByteBuffer) -> String {
        String(buffer: buffer)
    }

    static func text(_ bytes: [UInt8]) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    /// A notification of a one-token job, for classifier, scheduler and record tests.
    static func notification(
        _ n: Int = 1, app: String = "news", jobID: String = "job-1", campaignID: String? = "spring", attempt: Int = 1,
        replays: Int = 0,
        payload: String = #"{"aps":{"alert":"hi"}}"#
    ) -> PushNotification {
        let reference = JobReference(
            id: jobID, app: app, campaignID: campaignID, environment: .production, source: source)
        let headers = try! APNsRequestHeaders(topic: "com.example.news", pushType: .alert)
        return PushNotification(
            job: reference,
            token: token(n),
            headers: headers,
            payload: ByteBuffer(string: payload),
            attempt: attempt,
            replays: replays
        )
    }
}
