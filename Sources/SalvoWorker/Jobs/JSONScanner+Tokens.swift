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
            rejections.append(
                TokenRejection(
                    index: position, text: Self.cut(text), message: Self.tokenMessage(text, position: position)))
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
        // Eight bytes per step while they are all hex digits (a campaign's tokens are 64 of
        // them each), then byte by byte to find where the digits stop.
        while end + 8 <= bytes.count, Self.areHexDigits(bytes.loadUnaligned(fromByteOffset: end, as: UInt64.self)) {
            end += 8
        }
        while end < bytes.count {
            let byte = bytes[end]
            guard byte &- UInt8(ascii: "0") < 10 || (byte | 0x20) &- UInt8(ascii: "a") < 6 else { break }
            end += 1
        }
        let length = end - start
        guard end < bytes.count, bytes[end] == UInt8(ascii: "\""),
            length >= DeviceToken.minimumHexLength, length <= DeviceToken.maximumHexLength,
            length % 2 == 0
        else { return nil }
        index = end + 1
        return start..<end
    }

    /// Whether all eight bytes of `word` are ASCII hex digits (either case), without branching
    /// per byte. Each byte is < 0x80 once the first check passes, so adding a constant below
    /// 0x80 to every byte at once cannot carry into the next one; a byte's high bit then tells
    /// whether it reached the constant's threshold.
    @inline(__always)
    static func areHexDigits(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        guard word & highBits == 0 else { return false }
        // '0' (0x30) ... '9' (0x39): at least 0x30 and not above 0x39.
        let digits = (word &+ ones &* (0x80 - 0x30)) & ~(word &+ ones &* (0x7F - 0x39))
        // 'a' (0x61) ... 'f' (0x66) after folding upper case to lower case.
        let folded = word | (ones &* 0x20)
        let letters = (folded &+ ones &* (0x80 - 0x61)) & ~(folded &+ ones &* (0x7F - 0x66))
        return (digits | letters) & highBits == highBits
    }

    private static func cut(_ text: String) -> String {
        guard text.utf8.count > TokenRejection.maximumTextLength else { return text }
        return String(decoding: text.utf8.prefix(TokenRejection.maximumTextLength), as: UTF8.self)
    }

    private static func tokenMessage(_ text: String, position: Int?) -> String {
        let name = position.map { "tokens[\($0)]" } ?? "token"
        return
            "\(name) must be an even number of \(DeviceToken.minimumHexLength)…\(DeviceToken.maximumHexLength) hex characters without escapes, got \(text.utf8.count) bytes"
    }
}
