import SalvoPrimitives

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The JSON body of an APNs error answer: `{"reason":"…"}`, plus `"timestamp"` (milliseconds since
/// 1970, when APNs learnt the token was invalid) for 410. The client parses it; the mock server
/// writes it.
public struct APNsErrorBody: Sendable, Hashable {
    public var reason: APNsReason
    /// Milliseconds since 1970-01-01 UTC; APNs sends it with 410 answers.
    public var timestampMilliseconds: Int64?

    public init(reason: APNsReason, timestampMilliseconds: Int64? = nil) {
        self.reason = reason
        self.timestampMilliseconds = timestampMilliseconds
    }

    /// Parses a body; nil when it is not a JSON object with a string `reason`. The common shape is
    /// read by a byte scanner; anything unusual (escapes, fractional timestamps) goes through
    /// JSONDecoder.
    public init?(parsing body: some Collection<UInt8>) {
        let parsed =
            body.withContiguousStorageIfAvailable(Self.parse) ?? Array(body).withUnsafeBufferPointer(Self.parse)
        guard let parsed else { return nil }
        self = parsed
    }

    /// The body bytes as APNs writes them.
    public func encoded() -> [UInt8] {
        var text = "{\"reason\":" + JSONWriter.quoted(reason.string)
        if let timestampMilliseconds {
            text += ",\"timestamp\":\(timestampMilliseconds)"
        }
        text += "}"
        return Array(text.utf8)
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> APNsErrorBody? {
        var reason: String?
        var timestamp: Int64?
        let scanned = FlatJSONObjectScanner.scan(bytes) { key, value in
            switch (key, value) {
            case ("reason", .string(let string)): reason = string
            case ("timestamp", .integer(let integer)): timestamp = integer
            default: break
            }
        }
        if scanned {
            return reason.map { APNsErrorBody(reason: APNsReason($0), timestampMilliseconds: timestamp) }
        }
        guard let decoded = try? JSONDecoder().decode(Decoded.self, from: Data(bytes)), let text = decoded.reason else {
            return nil
        }
        return APNsErrorBody(reason: APNsReason(text), timestampMilliseconds: decoded.timestamp)
    }

    /// The general shape, for the rare bodies the scanner declines.
    private struct Decoded: Decodable {
        var reason: String?
        var timestamp: Int64?

        enum CodingKeys: String, CodingKey { case reason, timestamp }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            reason = try? container.decode(String.self, forKey: .reason)
            if let integer = try? container.decode(Int64.self, forKey: .timestamp) {
                timestamp = integer
            } else if let double = try? container.decode(Double.self, forKey: .timestamp), double.isFinite,
                let integer = Int64(exactly: double.rounded())
            {
                timestamp = integer
            }
        }
    }
}
