import SalvoAPNs

extension JSONScanner {
    /// Reads the `tokens` array: well-formed tokens go to `tokens`, malformed strings to
    /// `rejections` (the job proceeds without them), and a non-string element rejects the job
    /// (a producer that writes numbers into the array is broken, not its data).
    mutating func scanTokenArray(
        maximum: Int,
        into tokens: inout JobTokenList,
        rejections: inout [TokenRejection]
    ) throws(JobRejection) {
        try forEachElement { position, scanner throws(JobRejection) in
            guard position < maximum else {
                throw JobRejection(.tooManyTokens, "tokens holds more than \(maximum) entries")
            }
            if let range = scanner.scanHexToken() {
                tokens.append(range)
                return
            }
            guard scanner.peekKind() == .string else {
                let found = scanner.peekKind()?.name ?? "no value"
                throw JobRejection(.invalidField, "tokens[\(position)] must be a string, found \(found)")
            }
            let text = scanner.string(try scanner.scanString())
            rejections.append(TokenRejection(index: position, text: Self.cut(text), message: Self.tokenMessage(text, position: position)))
        }
    }

    /// Reads the single `token`: its hex range, or (consumed) the rejection when it is a string but
    /// not a well-formed token.
    mutating func scanSingleToken() throws(JobRejection) -> Result<Range<Int>, JobRejection> {
        if let range = scanHexToken() { return .success(range) }
        guard peekKind() == .string else {
            throw JobRejection(.invalidField, "token must be a string, found \(peekKind()?.name ?? "no value")")
        }
        let text = string(try scanString())
        return .failure(JobRejection(.invalidToken, Self.tokenMessage(text, position: nil)))
    }

    /// The fast path, one pass over the bytes: a string of hex digits, no escapes, of a length
    /// ``DeviceToken`` accepts. Consumes it and returns the hex's range; otherwise consumes nothing.
    @inline(__always)
    mutating func scanHexToken() -> Range<Int>? {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        let start = index + 1
        var end = start
        while end < bytes.count {
            let byte = bytes[end]
            guard byte &- UInt8(ascii: "0") < 10 || (byte | 0x20) &- UInt8(ascii: "a") < 6 else { break }
            end += 1
        }
        let length = end - start
        guard end < bytes.count, bytes[end] == UInt8(ascii: "\""),
              length >= DeviceToken.minimumHexLength, length <= DeviceToken.maximumHexLength,
              length % 2 == 0 else { return nil }
        index = end + 1
        return start..<end
    }

    private static func cut(_ text: String) -> String {
        guard text.utf8.count > TokenRejection.maximumTextLength else { return text }
        return String(decoding: text.utf8.prefix(TokenRejection.maximumTextLength), as: UTF8.self)
    }

    private static func tokenMessage(_ text: String, position: Int?) -> String {
        let name = position.map { "tokens[\($0)]" } ?? "token"
        return "\(name) must be an even number of \(DeviceToken.minimumHexLength)…\(DeviceToken.maximumHexLength) hex characters without escapes, got \(text.utf8.count) bytes"
    }
}
