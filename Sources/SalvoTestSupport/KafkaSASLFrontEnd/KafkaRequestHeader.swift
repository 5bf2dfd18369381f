import NIOCore

/// The header of a Kafka request frame (the frame's 4-byte size already removed): api key,
/// version, correlation id, client id, and in a flexible version (header v2) tagged fields.
///
/// The front end only needs to know the header of the requests it answers itself, so only their
/// flexible versions are known here; for any other API the fixed part is enough to refuse it.
struct KafkaRequestHeader: Equatable, Sendable {
    var apiKey: Int16
    var apiVersion: Int16
    var correlationID: Int32
    var clientID: String?

    static let apiVersions: Int16 = 18
    static let saslHandshake: Int16 = 17
    static let saslAuthenticate: Int16 = 36

    /// Whether the request (and, for SaslAuthenticate, its response) uses the flexible encoding:
    /// ApiVersions from v3, SaslAuthenticate from v2; SaslHandshake never.
    var isFlexible: Bool {
        switch apiKey {
        case Self.apiVersions: apiVersion >= 3
        case Self.saslAuthenticate: apiVersion >= 2
        default: false
        }
    }

    /// Reads the header from the front of `frame`, leaving the body; `nil` if it is malformed.
    static func read(from frame: inout ByteBuffer) -> KafkaRequestHeader? {
        guard let apiKey = frame.readInteger(as: Int16.self),
            let apiVersion = frame.readInteger(as: Int16.self),
            let correlationID = frame.readInteger(as: Int32.self),
            let clientID = frame.readKafkaNullableString()
        else { return nil }
        let header = KafkaRequestHeader(
            apiKey: apiKey, apiVersion: apiVersion, correlationID: correlationID, clientID: clientID)
        if header.isFlexible, frame.skipKafkaTaggedFields() == nil { return nil }
        return header
    }
}
