#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A channel's settings, the JSON body of a create request and of a read answer:
/// `{"message-storage-policy": 0|1, "push-type": "LiveActivity"}`.
///
/// Parsing is lenient where Apple's pages and known clients disagree (docs/decisions.md): the
/// policy may be a number or a numeric string (node-apn sends a string), and the push type is
/// compared without regard to case (`LiveActivity`, `Liveactivity` and `liveactivity` all appear
/// in Apple's pages). Encoding writes Apple's reference spelling.
public struct APNsChannelConfiguration: Sendable, Hashable {
    /// The only push type channels carry, in the spelling of Apple's reference section.
    public static let liveActivityPushType = "LiveActivity"

    public var storagePolicy: APNsChannelStoragePolicy

    public init(storagePolicy: APNsChannelStoragePolicy) {
        self.storagePolicy = storagePolicy
    }

    /// Parses a body, failing with the reason APNs answers: `PayloadEmpty` (no bytes),
    /// `BadRequestPayload` (not a JSON object), `MissingPushType`, `InvalidPushType`,
    /// `BadRequestParams` (policy missing or not 0/1).
    public init(parsing body: [UInt8]) throws(APNsReason) {
        guard !body.isEmpty else { throw .payloadEmpty }
        let fields: Fields
        do {
            fields = try JSONDecoder().decode(Fields.self, from: Data(body))
        } catch {
            throw .badRequestPayload
        }
        guard let pushType = fields.pushType else { throw .missingPushType }
        guard pushType.lowercased() == Self.liveActivityPushType.lowercased() else { throw .invalidPushType }
        guard let raw = fields.policy, let policy = APNsChannelStoragePolicy(rawValue: raw) else {
            throw .badRequestParams
        }
        self.storagePolicy = policy
    }

    /// `{"message-storage-policy":N,"push-type":"LiveActivity"}`.
    public func encoded() -> [UInt8] {
        Array(
            "{\"message-storage-policy\":\(self.storagePolicy.rawValue),\"push-type\":\"\(Self.liveActivityPushType)\"}"
                .utf8)
    }

    /// The two fields, each read leniently; a value of the wrong kind counts as absent
    /// (`push-type`) or invalid (`message-storage-policy`: -1).
    private struct Fields: Decodable {
        var policy: Int?
        var pushType: String?

        enum CodingKeys: String, CodingKey {
            case policy = "message-storage-policy"
            case pushType = "push-type"
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            if container.contains(.policy) {
                if let number = try? container.decode(Int.self, forKey: .policy) {
                    self.policy = number
                } else if let text = try? container.decode(String.self, forKey: .policy), let number = Int(text) {
                    self.policy = number
                } else {
                    self.policy = -1
                }
            }
            self.pushType = try? container.decodeIfPresent(String.self, forKey: .pushType)
        }
    }
}
