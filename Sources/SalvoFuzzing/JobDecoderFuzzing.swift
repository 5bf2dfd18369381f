import NIOCore
import SalvoAPNs
import SalvoWorker

/// Messages through the worker's job decoder, configured with the apps the seeds name. Either a
/// job comes out, within the token limit, whose every notification can be built (badge splicing
/// included), or a rejection with a reason code.
enum JobDecoderFuzzing {
    static let decoder: JobDecoder = {
        let apps = [
            "news": AppProfile(bundleID: "com.example.news"),
            "chat": AppProfile(bundleID: "com.example.chat", environment: .sandbox),
        ]
        // Valid by construction: both bundle ids are topics and the limits are within range.
        return try! JobDecoder(
            configuration: JobDecoder.Configuration(apps: apps, maximumJobBytes: 65_536, maximumTokens: 1_000))
    }()

    static func run(_ bytes: [UInt8]) throws(FuzzFinding) {
        switch decoder.decode(ByteBuffer(bytes: bytes)) {
        case .success(let job):
            guard job.notificationCount <= 1_000 else {
                throw FuzzFinding("a decoded job has \(job.notificationCount) tokens; the limit is 1000")
            }
            let shared = job.shared(job.reference(source: SourcePosition(topic: "fuzz", partition: 0, offset: 0)))
            for index in 0..<job.notificationCount {
                _ = job.notification(at: index, shared: shared)
            }
        case .failure(let rejection):
            guard !rejection.reason.code.isEmpty else { throw FuzzFinding("a rejection without a reason code") }
        }
    }
}
