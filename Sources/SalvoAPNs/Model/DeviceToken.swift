/// A validated APNs device token.
///
/// Apple documents tokens as opaque and variable length (today 32 bytes, 64 hex characters), so
/// any even count of 16…200 hexadecimal characters is accepted and everything else is refused
/// before sending (APNs would answer `BadDeviceToken`). The token is stored once, normalized to
/// lowercase, already inside the request path `/3/device/<token>`: sending it costs no copy, and
/// two spellings of one token compare and hash equal (deduplication, per-token rate limits).
public struct DeviceToken: Sendable, Hashable, CustomStringConvertible {
    /// Fewest hex characters accepted. Default tokens have 64.
    public static let minimumHexLength = 16
    /// Most hex characters accepted.
    public static let maximumHexLength = 200

    static let pathPrefix: [UInt8] = Array("/3/device/".utf8)

    /// `/3/device/<lowercase hex>`, the `:path` of the request.
    public let path: [UInt8]

    /// Parses a hexadecimal token in either case.
    public init(hex: String) throws(APNsError) {
        try self.init(hexBytes: hex.utf8)
    }

    /// Parses hexadecimal ASCII bytes in either case (for example a slice of a Kafka message).
    ///
    /// Inlinable so the caller's module specialises the one generic step (getting at the bytes
    /// as a buffer); the parsing itself is non-generic. Unspecialised across the module
    /// boundary, walking the caller's collection through protocol witnesses cost ~4.6 µs a token.
    @inlinable
    public init(hexBytes: some Collection<UInt8>) throws(APNsError) {
        let path: [UInt8]?
        if let contiguous = hexBytes.withContiguousStorageIfAvailable(Self.path(forHexBuffer:)) {
            path = contiguous
        } else {
            path = Array(hexBytes).withUnsafeBufferPointer(Self.path(forHexBuffer:))
        }
        guard let path else { throw Self.invalidHex(count: hexBytes.count) }
        self.init(validatedPath: path)
    }

    /// A token from hex the caller already validated (a scanner applying ``init(hexBytes:)``'s
    /// rules when a job was decoded, say): only lowercased and copied, so
    /// building a campaign's notifications does not validate every token a second time.
    /// Passing anything but 16…200 hex characters (an even count) makes an invalid token.
    public init(validatedHex hex: UnsafeRawBufferPointer) {
        assert(Self.path(forHex: hex) != nil, "not a valid token")
        let prefix = Self.pathPrefix
        let path = [UInt8](unsafeUninitializedCapacity: prefix.count + hex.count) { buffer, initialized in
            for index in prefix.indices { buffer[index] = prefix[index] }
            // ASCII digits already have bit 5 set; setting it lowercases A–F.
            for index in 0..<hex.count { buffer[prefix.count + index] = hex[index] | 0x20 }
            initialized = prefix.count + hex.count
        }
        self.init(validatedPath: path)
    }

    /// The error for hex that is not a token, out of line: the inlined initializer stays small.
    @usableFromInline
    static func invalidHex(count: Int) -> APNsError {
        APNsError(
            code: .invalidDeviceToken,
            message: "device token must be an even number of \(Self.minimumHexLength)…\(Self.maximumHexLength) hex characters, got \(count) bytes",
            reason: .badDeviceToken
        )
    }

    /// ``path(forHex:)`` for a whole buffer: the non-generic entry the inlined initializer calls.
    @usableFromInline
    static func path(forHexBuffer hex: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        Self.path(forHex: hex)
    }

    /// Encodes a binary token (as iOS hands it to the app) as hex.
    public init(bytes: some Collection<UInt8>) throws(APNsError) {
        let hexLength = bytes.count * 2
        guard hexLength >= Self.minimumHexLength, hexLength <= Self.maximumHexLength else {
            throw APNsError(
                code: .invalidDeviceToken,
                message: "binary device token must have \(Self.minimumHexLength / 2)…\(Self.maximumHexLength / 2) bytes, got \(bytes.count)",
                reason: .badDeviceToken
            )
        }
        var path = Self.pathPrefix
        path.reserveCapacity(Self.pathPrefix.count + hexLength)
        for byte in bytes {
            path.append(ASCII.lowercaseHexDigit(byte >> 4))
            path.append(ASCII.lowercaseHexDigit(byte & 0x0F))
        }
        self.path = path
    }

    /// Reads the token out of a request path (the mock server's side). Answers the reason APNs
    /// gives: `BadPath` when the path is not `/3/device/…`, `MissingDeviceToken` when the token is
    /// empty, `BadDeviceToken` when it is malformed.
    ///
    /// Inlinable for the same reason as ``init(hexBytes:)``: a server calls it for every request.
    @inlinable
    public static func parse(path: some Collection<UInt8>) -> Result<DeviceToken, APNsReason> {
        if let result = path.withContiguousStorageIfAvailable(Self.parse(contiguousPath:)) { return result }
        return Array(path).withUnsafeBufferPointer(Self.parse(contiguousPath:))
    }

    @usableFromInline
    static func parse(contiguousPath path: UnsafeBufferPointer<UInt8>) -> Result<DeviceToken, APNsReason> {
        guard path.starts(with: pathPrefix) else { return .failure(.badPath) }
        let hex = path.dropFirst(pathPrefix.count)
        if hex.isEmpty { return .failure(.missingDeviceToken) }
        guard let normalized = Self.path(forHex: hex) else {
            // Only a failed token is searched for path syntax: a valid one contains neither byte.
            let isPath = hex.contains { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") }
            return .failure(isPath ? .badPath : .badDeviceToken)
        }
        return .success(DeviceToken(validatedPath: normalized))
    }

    @usableFromInline
    init(validatedPath: [UInt8]) {
        self.path = validatedPath
    }

    /// The lowercase hex characters (the path without its prefix).
    public var hexBytes: ArraySlice<UInt8> {
        path[Self.pathPrefix.count...]
    }

    /// The lowercase hex string.
    public var hex: String {
        String(decoding: hexBytes, as: UTF8.self)
    }

    public var description: String { hex }

    /// Validates and lowercases `hex` into a complete path, or nil if it is not a valid token.
    private static func path(forHex hex: some Collection<UInt8>) -> [UInt8]? {
        // Generic only for buffers and their slices, which the compiler specialises here.
        let count = hex.count
        guard count >= minimumHexLength, count <= maximumHexLength, count % 2 == 0 else { return nil }
        let prefix = pathPrefix
        var valid = true
        // One allocation, written in place: this runs for every token a worker or the mock reads.
        let path = [UInt8](unsafeUninitializedCapacity: prefix.count + count) { buffer, initialized in
            var index = 0
            for byte in prefix {
                buffer[index] = byte
                index += 1
            }
            for byte in hex {
                guard let value = ASCII.hexValue(byte) else {
                    valid = false
                    break
                }
                buffer[index] = ASCII.lowercaseHexDigit(value)
                index += 1
            }
            initialized = index
        }
        return valid ? path : nil
    }
}
