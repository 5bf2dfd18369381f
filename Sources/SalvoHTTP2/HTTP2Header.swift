/// One header field, as strings; iterate `HTTP2Headers` to get them in order.
public struct HTTP2Header: Sendable, Hashable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// Pseudo-header fields (`:method`, `:path`, `:status`, …) start with a colon.
    public var isPseudoHeader: Bool { self.name.utf8.first == UInt8(ascii: ":") }
}
