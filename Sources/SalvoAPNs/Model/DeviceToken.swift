/// A validated APNs device token.
///
/// Apple documents tokens as opaque and variable length (today 32 bytes, 64 hex characters), so
/// any even count of 16…200 hexadecimal characters is accepted and everything else is refused
/// before sending (APNs would answer `BadDeviceToken`). The token is stored once, normalized to
/// lowercase, so two spellings of one token compare and hash equal (deduplication, per-token rate
/// limits); a 64-character token is stored inline (see ``DeviceTokenStorage``), so a campaign's
/// notifications get their tokens without an allocation each.
public struct DeviceToken: Sendable, Hashable, CustomStringConvertible {
    /// Fewest hex characters accepted. Default tokens have 64.
    public static let minimumHexLength = 16
    /// Most hex characters accepted.
    public static let maximumHexLength = 200

    static let pathPrefix: StaticString = "/3/device/"

    @usableFromInline
    let storage: DeviceTokenStorage

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
        let storage: DeviceTokenStorage?
        if let contiguous = hexBytes.withContiguousStorageIfAvailable(Self.storage(forHexBuffer:)) {
            storage = contiguous
        } else {
            storage = Array(hexBytes).withUnsafeBufferPointer(Self.storage(forHexBuffer:))
        }
        guard let storage else { throw Self.invalidHex(count: hexBytes.count) }
        self.storage = storage
    }

    /// A token from hex the caller already validated (a scanner applying ``init(hexBytes:)``'s
    /// rules when a job was decoded, say): only lowercased and copied, so
    /// building a campaign's notifications does not validate every token a second time.
    /// Passing anything but 16…200 hex characters (an even count) makes an invalid token.
    public init(validatedHex hex: UnsafeRawBufferPointer) {
        assert(Self.storage(forHex: hex) != nil, "not a valid token")
        self.storage = DeviceTokenStorage(validatedHex: hex)
    }

    /// The error for hex that is not a token, out of line: the inlined initializer stays small.
    @usableFromInline
    static func invalidHex(count: Int) -> APNsError {
        APNsError(
            code: .invalidDeviceToken,
            message:
                "device token must be an even number of \(Self.minimumHexLength)…\(Self.maximumHexLength) hex characters, got \(count) bytes",
            reason: .badDeviceToken
        )
    }

    /// ``storage(forHex:)`` for a whole buffer: the non-generic entry the inlined initializer calls.
    @usableFromInline
    static func storage(forHexBuffer hex: UnsafeBufferPointer<UInt8>) -> DeviceTokenStorage? {
        Self.storage(forHex: hex)
    }

    /// Encodes a binary token (as iOS hands it to the app) as hex.
    public init(bytes: some Collection<UInt8>) throws(APNsError) {
        let hexLength = bytes.count * 2
        guard hexLength >= Self.minimumHexLength, hexLength <= Self.maximumHexLength else {
            throw APNsError(
                code: .invalidDeviceToken,
                message:
                    "binary device token must have \(Self.minimumHexLength / 2)…\(Self.maximumHexLength / 2) bytes, got \(bytes.count)",
                reason: .badDeviceToken
            )
        }
        var hex: [UInt8] = []
        hex.reserveCapacity(hexLength)
        for byte in bytes {
            hex.append(ASCII.lowercaseHexDigit(byte >> 4))
            hex.append(ASCII.lowercaseHexDigit(byte & 0x0F))
        }
        self.storage = hex.withUnsafeBytes(DeviceTokenStorage.init(validatedHex:))
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
        let prefix = UnsafeBufferPointer(start: pathPrefix.utf8Start, count: pathPrefix.utf8CodeUnitCount)
        guard path.starts(with: prefix) else { return .failure(.badPath) }
        let hex = path.dropFirst(prefix.count)
        if hex.isEmpty { return .failure(.missingDeviceToken) }
        guard let storage = Self.storage(forHex: hex) else {
            // Only a failed token is searched for path syntax: a valid one contains neither byte.
            let isPath = hex.contains { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") }
            return .failure(isPath ? .badPath : .badDeviceToken)
        }
        return .success(DeviceToken(storage: storage))
    }

    @usableFromInline
    init(storage: DeviceTokenStorage) {
        self.storage = storage
    }

    /// Lends the lowercase hex characters, without copying them.
    public func withHexBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try self.storage.withHexBytes(body)
    }

    /// Length of `/3/device/<lowercase hex>`, the `:path` of the request.
    public var pathCount: Int {
        Self.pathPrefix.utf8CodeUnitCount + self.withHexBytes { $0.count }
    }

    /// Writes `/3/device/<lowercase hex>` into the first ``pathCount`` bytes of `buffer`: the
    /// request encoder writes it straight into the header block.
    public func writePath(into buffer: UnsafeMutableRawBufferPointer) {
        let prefixCount = Self.pathPrefix.utf8CodeUnitCount
        self.withHexBytes { hex in
            precondition(buffer.count >= prefixCount + hex.count, "a path needs \(prefixCount + hex.count) bytes")
            buffer.copyMemory(from: UnsafeRawBufferPointer(start: Self.pathPrefix.utf8Start, count: prefixCount))
            UnsafeMutableRawBufferPointer(rebasing: buffer[prefixCount...]).copyMemory(from: hex)
        }
    }

    /// `/3/device/<lowercase hex>`, the `:path` of the request (a new array: for tests and tools;
    /// the request encoder uses ``writePath(into:)``).
    public var path: [UInt8] {
        [UInt8](unsafeUninitializedCapacity: self.pathCount) { buffer, count in
            self.writePath(into: UnsafeMutableRawBufferPointer(buffer))
            count = buffer.count
        }
    }

    /// The lowercase hex characters (a new array; see ``withHexBytes(_:)``).
    public var hexBytes: [UInt8] { self.withHexBytes { Array($0) } }

    /// The lowercase hex string.
    public var hex: String {
        self.withHexBytes { String(decoding: $0, as: UTF8.self) }
    }

    public var description: String { hex }

    /// Validates `hex` and stores it lowercased, or nil if it is not a valid token.
    private static func storage(forHex hex: some Collection<UInt8>) -> DeviceTokenStorage? {
        // Generic only for buffers and their slices, which the compiler specialises here.
        let count = hex.count
        guard count >= minimumHexLength, count <= maximumHexLength, count % 2 == 0 else { return nil }
        // Normalized on the stack, then stored (inline for 64 characters): the mock runs this
        // for every request it reads.
        return withUnsafeTemporaryAllocation(byteCount: count, alignment: 1) { buffer -> DeviceTokenStorage? in
            var index = 0
            for byte in hex {
                guard let value = ASCII.hexValue(byte) else { return nil }
                buffer[index] = ASCII.lowercaseHexDigit(value)
                index += 1
            }
            return DeviceTokenStorage(validatedHex: UnsafeRawBufferPointer(buffer))
        }
    }
}
