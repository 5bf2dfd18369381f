import NIOCore

/// The response frames the front end writes itself, each with its 4-byte size prefix
/// (https://kafka.apache.org/protocol#The_Messages_SaslHandshake and SaslAuthenticate).
enum KafkaSASLResponses {
    static let noError: Int16 = 0
    static let unsupportedSASLMechanism: Int16 = 33
    static let illegalSASLState: Int16 = 34
    static let saslAuthenticationFailed: Int16 = 58

    /// SaslHandshake v0 and v1 (same layout): error code and the enabled mechanisms.
    static func handshake(correlationID: Int32, errorCode: Int16, mechanisms: [KafkaSASLMechanism]) -> ByteBuffer {
        frame(correlationID: correlationID, flexible: false) { body in
            body.writeInteger(errorCode)
            body.writeInteger(Int32(mechanisms.count))
            for mechanism in mechanisms { body.writeKafkaString(mechanism.rawValue) }
        }
    }

    /// SaslAuthenticate v0 to v2: v1 adds the session lifetime (0: the session never expires),
    /// v2 is flexible (compact fields, tagged fields, response header v1).
    static func authenticate(
        version: Int16, correlationID: Int32, errorCode: Int16, errorMessage: String?, authBytes: [UInt8]
    ) -> ByteBuffer {
        let flexible = version >= 2
        return frame(correlationID: correlationID, flexible: flexible) { body in
            body.writeInteger(errorCode)
            body.writeKafkaNullableString(errorMessage, compact: flexible)
            body.writeKafkaBytes(authBytes, compact: flexible)
            if version >= 1 { body.writeInteger(Int64(0)) }
            if flexible { body.writeKafkaEmptyTaggedFields() }
        }
    }

    /// A SASL token as handshake v0 carries it: only the 4-byte size, no Kafka header.
    static func rawToken(_ token: [UInt8]) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.writeInteger(Int32(token.count))
        buffer.writeBytes(token)
        return buffer
    }

    /// Size, response header (v0: correlation id; v1: also tagged fields), then the body.
    private static func frame(
        correlationID: Int32, flexible: Bool, _ writeBody: (inout ByteBuffer) -> Void
    ) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.writeInteger(Int32(0))
        buffer.writeInteger(correlationID)
        if flexible { buffer.writeKafkaEmptyTaggedFields() }
        writeBody(&buffer)
        buffer.setInteger(Int32(buffer.readableBytes - 4), at: buffer.readerIndex)
        return buffer
    }
}
