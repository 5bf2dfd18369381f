import Crypto

/// The last record the worker can write for a record Kafka refuses for good (too large for its
/// topic, not authorized): a dead letter without the body, whose headers still say where the job
/// is (`salvo-source-topic/partition/offset`), why, how large the refused record was and its
/// SHA-256, so an operator can find the job in its source partition and compare.
///
/// A poison record must never block its partition: the job's offset commits once this dead letter
/// is acknowledged (or, if even this is refused, once it is abandoned; docs/jobs.md).
enum BodylessDeadLetter {
    /// The reason code of a body-less dead letter whose refused record was not itself a dead letter
    /// (a feedback event or a retry hand-off).
    static let recordRefusedCode = "record_refused"

    static func record(replacing refused: PendingRecord, error: String, deadLetterTopic: String) -> PendingRecord {
        let original = refused.record
        var headers = original.headers.filter { !replacedHeaders.contains($0.name) }
        if refused.kind != .deadLetter {
            headers.append(RecordHeader(name: "salvo-reason", text: recordRefusedCode))
            headers.append(RecordHeader(name: "salvo-kind", text: refused.kind.headerValue))
        }
        headers.append(RecordHeader(name: "salvo-source-topic", text: refused.source.topic))
        headers.append(RecordHeader(name: "salvo-source-partition", text: String(refused.source.partition)))
        headers.append(RecordHeader(name: "salvo-source-offset", text: String(refused.source.offset)))
        headers.append(RecordHeader(name: "salvo-body-omitted", text: error))
        headers.append(RecordHeader(name: "salvo-refused-topic", text: refused.topic))
        headers.append(RecordHeader(name: "salvo-original-size", text: String(original.value.count)))
        headers.append(RecordHeader(name: "salvo-original-sha256", text: sha256Hex(original.value)))
        var replacement = refused
        replacement.kind = .deadLetter
        replacement.topic = deadLetterTopic
        replacement.record = OutgoingRecord(key: original.key, value: [], headers: headers)
        replacement.isBodyless = true
        return replacement
    }

    /// Headers the replacement writes itself.
    private static let replacedHeaders: Set<String> = [
        "salvo-source-topic", "salvo-source-partition", "salvo-source-offset",
    ]

    private static func sha256Hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in SHA256.hash(data: bytes) {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}

extension PendingRecord.Kind {
    /// The `salvo-kind` header of a body-less dead letter that replaces a record of this kind.
    var headerValue: String {
        switch self {
        case .feedback: "feedback"
        case .deadLetter: "dead_letter"
        case .retry: "retry"
        case .progress: "progress"
        }
    }
}
