import SalvoAPNs

/// Requests as the mock APNs judges them (`APNsRequestValidator`, the rules its connections
/// apply). Input, split at newlines: the method, the path, then header fields `name:value` (a
/// leading `:` belongs to the name, as in pseudo-headers); the input's length is the body size.
/// Half of the inputs (by their first byte) are judged as on a certificate connection whose
/// certificate names a topic, the other half as on a token connection.
enum MockRequestFuzzing {
    static let validators = [
        APNsRequestValidator(),
        APNsRequestValidator(topicWhenMissing: "com.example.news") { $0.string.hasPrefix("com.example.news") },
    ]

    static func run(_ bytes: [UInt8]) {
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        guard lines.count >= 2 else { return }
        let fields = lines.dropFirst(2).compactMap { line -> APNsHeaderField? in
            guard let colon = line.dropFirst().firstIndex(of: UInt8(ascii: ":")) else { return nil }
            return APNsHeaderField(name: Array(line[..<colon]), value: Array(line[(colon + 1)...]))
        }
        let validator = validators[Int(bytes.first ?? 0) % validators.count]
        _ = validator.inspect(method: lines[0], path: lines[1], headers: fields, bodySize: bytes.count)
    }
}
