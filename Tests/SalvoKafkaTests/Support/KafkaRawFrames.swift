/// Kafka request frames and answer fields written out by hand, independent of the front end's
/// own encoder, so the protocol tests check its bytes against the protocol and not itself.
enum KafkaRawFrames {
    static func int16(_ value: Int16) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }

    static func int32(_ value: Int32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }

    static func string(_ text: String) -> [UInt8] { int16(Int16(text.utf8.count)) + Array(text.utf8) }

    /// A request: size, api key, version, correlation id, client id "raw", then (header v2) an
    /// empty tag buffer, then `body`.
    static func request(
        apiKey: Int16, version: Int16, correlationID: Int32, flexibleHeader: Bool = false, body: [UInt8] = []
    ) -> [UInt8] {
        let frame =
            int16(apiKey) + int16(version) + int32(correlationID) + string("raw") + (flexibleHeader ? [0] : []) + body
        return int32(Int32(frame.count)) + frame
    }

    /// A reader over an answer's payload (a class: `#require` cannot call mutating methods).
    final class Reader {
        var bytes: ArraySlice<UInt8>

        init(_ bytes: [UInt8]) { self.bytes = bytes[...] }

        func int16() -> Int16? {
            take(2).map { Int16(bitPattern: UInt16($0[$0.startIndex]) << 8 | UInt16($0.last!)) }
        }

        func int32() -> Int32? {
            take(4).map { Int32(bitPattern: $0.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }) }
        }

        func take(_ count: Int) -> ArraySlice<UInt8>? {
            guard bytes.count >= count else { return nil }
            defer { bytes = bytes.dropFirst(count) }
            return bytes.prefix(count)
        }

        func string() -> String? {
            guard let length = int16(), length >= 0, let text = take(Int(length)) else { return nil }
            return String(decoding: text, as: UTF8.self)
        }

        /// A single-byte unsigned varint (the small lengths these tests see).
        func smallVarint() -> Int? { take(1).map { Int($0[$0.startIndex]) } }
    }
}
