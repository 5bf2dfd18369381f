extension JSONScanner {
    /// Steps over a string whose opening quote is next, validating escapes and UTF-8, and returns
    /// where its contents are.
    mutating func scanString() throws(JobRejection) -> JSONStringSpan {
        skipWhitespace()
        guard peek() == UInt8(ascii: "\"") else { throw syntaxError(expecting: "a string") }
        index += 1
        let start = index
        var hasEscapes = false
        // A local cursor, eight bytes at a time: the loop over plain text stays in registers and
        // jumps straight to the first byte that ends or interrupts it.
        var position = index
        let end = bytes.count
        while position < end {
            if end - position >= 8 {
                let stops = Self.stringStops(bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self))
                if stops == 0 {
                    position += 8
                    continue
                }
                position += stops.trailingZeroBitCount >> 3
            }
            let byte = bytes[position]
            if byte >= 0x20, byte < 0x80, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
                position += 1
                continue
            }
            index = position
            if byte == UInt8(ascii: "\"") {
                index += 1
                return JSONStringSpan(range: start..<(index - 1), hasEscapes: hasEscapes)
            } else if byte == UInt8(ascii: "\\") {
                hasEscapes = true
                try skipEscape()
            } else if byte < 0x20 {
                throw syntaxError(expecting: "no control character inside a string")
            } else {
                guard skipUTF8Sequence() else { throw syntaxError(expecting: "valid UTF-8") }
            }
            position = index
        }
        index = position
        throw syntaxError(expecting: "'\"' closing the string")
    }

    /// The high bit of each byte of `word` (read little-endian, so the lowest set bit is the
    /// earliest byte) that is not plain string text: a quote, a backslash, a control character or
    /// a byte from 0x80. Adding a constant below 0x80 to a byte below 0x80 cannot carry, so each
    /// such byte's high bit answers "at least 0x20" and "not the quote / backslash" (after XOR);
    /// a byte from 0x80 is a stop itself, and only bytes after it can see its carry. The lowest
    /// set bit is therefore exact; later ones may be false stops, which the byte loop skips.
    @inline(__always)
    static func stringStops(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        let printable = word &+ ones &* (0x80 - 0x20)
        let notQuote = (word ^ (ones &* UInt64(UInt8(ascii: "\"")))) &+ ones &* 0x7F
        let notBackslash = (word ^ (ones &* UInt64(UInt8(ascii: "\\")))) &+ ones &* 0x7F
        return (~(printable & notQuote & notBackslash) | word) & highBits
    }

    /// At a backslash: steps over `\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t` or `\uXXXX`.
    private mutating func skipEscape() throws(JobRejection) {
        index += 1
        guard let escaped = peek() else { throw syntaxError(expecting: "an escape sequence") }
        switch escaped {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
            UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            index += 1
        case UInt8(ascii: "u"):
            guard bytes.count - index > 4, hexQuad(at: index + 1) != nil else {
                throw syntaxError(expecting: "four hex digits after \\u")
            }
            index += 5
        default:
            throw syntaxError(expecting: "a valid escape sequence")
        }
    }

    /// Steps over one multi-byte UTF-8 sequence (RFC 3629: no overlongs, no surrogates, ≤ U+10FFFF).
    @inline(__always)
    private mutating func skipUTF8Sequence() -> Bool {
        let lead = bytes[index]
        var lower: UInt8 = 0x80
        var upper: UInt8 = 0xBF
        let continuationCount: Int
        switch lead {
        case 0xC2...0xDF: continuationCount = 1
        case 0xE0:
            continuationCount = 2
            lower = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: continuationCount = 2
        case 0xED:
            continuationCount = 2
            upper = 0x9F
        case 0xF0:
            continuationCount = 3
            lower = 0x90
        case 0xF1...0xF3: continuationCount = 3
        case 0xF4:
            continuationCount = 3
            upper = 0x8F
        default: return false
        }
        guard bytes.count - index > continuationCount else { return false }
        let second = bytes[index + 1]
        guard second >= lower, second <= upper else { return false }
        for offset in stride(from: 2, through: continuationCount, by: 1) where bytes[index + offset] & 0xC0 != 0x80 {
            return false
        }
        index += continuationCount + 1
        return true
    }

    private func hexQuad(at offset: Int) -> UInt32? {
        var value: UInt32 = 0
        for position in offset..<(offset + 4) {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    // MARK: Decoding

    /// The string's contents with escapes resolved, as UTF-8. Lone surrogates in `\u` escapes
    /// become U+FFFD. The span must come from ``scanString()`` on this scanner (already validated).
    func unescapedBytes(_ span: JSONStringSpan) -> [UInt8] {
        guard span.hasEscapes else { return Array(bytes[span.range]) }
        var output: [UInt8] = []
        output.reserveCapacity(span.range.count)
        var position = span.range.lowerBound
        while position < span.range.upperBound {
            let byte = bytes[position]
            guard byte == UInt8(ascii: "\\") else {
                output.append(byte)
                position += 1
                continue
            }
            let escaped = bytes[position + 1]
            position += 2
            switch escaped {
            case UInt8(ascii: "b"): output.append(0x08)
            case UInt8(ascii: "f"): output.append(0x0C)
            case UInt8(ascii: "n"): output.append(0x0A)
            case UInt8(ascii: "r"): output.append(0x0D)
            case UInt8(ascii: "t"): output.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = hexQuad(at: position) ?? 0xFFFD
                position += 4
                if (0xD800...0xDBFF).contains(scalar) {
                    // A high surrogate counts only when a low surrogate escape follows.
                    if position + 6 <= span.range.upperBound, bytes[position] == UInt8(ascii: "\\"),
                        bytes[position + 1] == UInt8(ascii: "u"), let low = hexQuad(at: position + 2),
                        (0xDC00...0xDFFF).contains(low)
                    {
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        position += 6
                    } else {
                        scalar = 0xFFFD
                    }
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    scalar = 0xFFFD
                }
                UTF8.encode(Unicode.Scalar(scalar) ?? "\u{FFFD}") { output.append($0) }
            default: output.append(escaped)
            }
        }
        return output
    }

    /// The string's contents as a `String`.
    func string(_ span: JSONStringSpan) -> String {
        if span.hasEscapes {
            return String(decoding: unescapedBytes(span), as: UTF8.self)
        }
        return String(decoding: bytes[span.range], as: UTF8.self)
    }

    /// Reads a string value and returns it decoded.
    mutating func scanDecodedString() throws(JobRejection) -> String {
        string(try scanString())
    }
}
