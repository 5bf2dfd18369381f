#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Whether bytes are one well-formed JSON object: the broadcast endpoint answers
/// `BadRequestPayload` otherwise. Parsed fully (JSONDecoder reads the whole document before
/// decoding), because broadcasts are few and a half-checked payload would reach every subscriber.
enum MockJSONObject {
    static func isObject(_ bytes: some Collection<UInt8>) -> Bool {
        (try? JSONDecoder().decode(AnyObjectShape.self, from: Data(bytes))) != nil
    }

    /// Decodes only as a keyed container, i.e. a JSON object.
    private struct AnyObjectShape: Decodable {
        init(from decoder: any Decoder) throws {
            _ = try decoder.container(keyedBy: AnyKey.self)
        }
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
