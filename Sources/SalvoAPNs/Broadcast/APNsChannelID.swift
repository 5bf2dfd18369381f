#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A broadcast channel's id as APNs hands it out (`apns-channel-id`): standard base64 of opaque
/// bytes. Checked for that shape before sending, so a typo fails here (`BadChannelId` at Apple)
/// rather than on the network.
public struct APNsChannelID: Sendable, Hashable, CustomStringConvertible {
    /// Longest id accepted, in bytes of text. Apple's ids are 24 characters; the bound only keeps
    /// hostile input out of header blocks and logs.
    public static let maximumLength = 256

    public let string: String

    /// Nil unless `text` is non-empty standard base64 (padding included) of at most
    /// ``maximumLength`` characters.
    public init?(_ text: String) {
        guard !text.isEmpty, text.utf8.count <= Self.maximumLength, let data = Data(base64Encoded: text), !data.isEmpty
        else {
            return nil
        }
        self.string = text
    }

    public var description: String { self.string }
}
