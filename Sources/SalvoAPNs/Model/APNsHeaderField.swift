/// One HTTP/2 header as bytes, the form nghttp2 consumes (`nghttp2_nv` name/value pointers), so
/// the connection can pass it on without building Strings. Names are lowercase, as HTTP/2 requires.
///
/// Arrays are shared copy-on-write: the per-topic fields of a campaign are built once and every
/// request only retains them.
public struct APNsHeaderField: Sendable, Hashable, CustomStringConvertible {
    public var name: [UInt8]
    public var value: [UInt8]

    public init(name: [UInt8], value: [UInt8]) {
        self.name = name
        self.value = value
    }

    public init(name: String, value: String) {
        self.name = Array(name.utf8)
        self.value = Array(value.utf8)
    }

    /// Header names APNs defines, as bytes.
    public enum Name {
        public static let topic: [UInt8] = Array("apns-topic".utf8)
        public static let pushType: [UInt8] = Array("apns-push-type".utf8)
        public static let priority: [UInt8] = Array("apns-priority".utf8)
        public static let expiration: [UInt8] = Array("apns-expiration".utf8)
        public static let collapseID: [UInt8] = Array("apns-collapse-id".utf8)
        public static let apnsID: [UInt8] = Array("apns-id".utf8)
        public static let apnsUniqueID: [UInt8] = Array("apns-unique-id".utf8)
        public static let authorization: [UInt8] = Array("authorization".utf8)
    }

    /// Shows the value of every header except `authorization`, whose bearer token is a credential.
    public var description: String {
        let nameText = String(decoding: name, as: UTF8.self)
        let valueText = name == Name.authorization ? "<redacted>" : String(decoding: value, as: UTF8.self)
        return "\(nameText): \(valueText)"
    }
}
