import NIOCore
import SalvoAPNs
import SalvoPrimitives
import Testing

@testable import SalvoWorker

@Suite struct JSONScannerTests {
    /// Validates `text` as one JSON value; nil when valid, else the rejection message.
    private func validate(_ bytes: [UInt8]) -> JobRejection? {
        do {
            try JSONScanner.withScanner(over: ByteBuffer(bytes: bytes)) { scanner throws(JobRejection) in
                try scanner.skipValue()
                try scanner.expectEnd()
            }
            return nil
        } catch {
            return error
        }
    }

    private func validate(_ text: String) -> JobRejection? {
        validate(Array(text.utf8))
    }

    @Test(arguments: [
        "{}", "[]", "0", "-0", "1.5", "-1.5e+10", "1E-2", "true", "false", "null", #""""#,
        #"{"a":[1,{"b":null}],"c":"\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00"}"#, " \t\r\n{ \"a\" : 1 } \n",
        "\"héllo ✓ 😀\"", "[[],{}]", #"{"a":{"b":{"c":[[1],[2,{"d":[]}]]}},"e":[{},[]]}"#, #"[{"a":[]},{},[[{}]]]"#,
    ])
    func acceptsValidJSON(_ text: String) {
        #expect(validate(text) == nil, "\(text)")
    }

    @Test(arguments: [
        "", "{", "}", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "01", "1.", ".5", "-", "1e", "+1", "tru", "nul",
        "\"abc", "\"\\x\"", "\"\\u12g4\"", "{} {}", "'a'", "[1 2]", "NaN",
        "[}", "{]", #"{"a":[1}"#, #"[{"a":1]]"#, #"{"a":1 "b":2}"#, "[[]", #"{"a":{}"#, "{,}", "[,1]", #"{"a":1,"b"}"#,
        #"[{"a"}]"#,
    ])
    func rejectsInvalidJSON(_ text: String) {
        #expect(validate(text)?.reason == .malformedJSON, "\(text)")
    }

    @Test func rejectsInvalidUTF8() {
        let quote = UInt8(ascii: "\"")
        for bad: [UInt8] in [
            [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xE2, 0x82], [0x80], [0xF0, 0x8F, 0xBF, 0xBF],
        ] {
            #expect(validate([quote] + bad + [quote])?.reason == .malformedJSON, "\(bad)")
        }
        #expect(validate([quote, 0xE2, 0x82, 0xAC, quote]) == nil)
    }

    @Test func limitsNesting() {
        let ok =
            String(repeating: "[", count: JSONScanner.maximumDepth)
            + String(repeating: "]", count: JSONScanner.maximumDepth)
        #expect(validate(ok) == nil)
        let deep = "[" + ok + "]"
        #expect(validate(deep)?.message.contains("nesting") == true)
        let objects =
            String(repeating: #"{"a":"#, count: JSONScanner.maximumDepth - 1) + "[]"
            + String(repeating: "}", count: JSONScanner.maximumDepth - 1)
        #expect(validate(objects) == nil)
        #expect(validate("[" + objects + "]")?.message.contains("nesting") == true)
    }

    @Test func messagesNameTheOffset() {
        #expect(validate(#"{"a":}"#)?.message.contains("byte 5") == true)
    }

    @Test func unescapesStrings() throws {
        let text = #""a\"b\\c\/d\n\u00e9\ud83d\ude00\ud800x""#
        let decoded = try JSONScanner.withScanner(over: ByteBuffer(string: text)) { scanner throws(JobRejection) in
            scanner.string(try scanner.scanString())
        }
        #expect(decoded == "a\"b\\c/d\né😀\u{FFFD}x")
    }

    @Test func readsIntegers() throws {
        func integer(_ text: String) throws -> Int64? {
            try JSONScanner.withScanner(over: ByteBuffer(string: text)) { scanner throws(JobRejection) in
                try scanner.scanInteger()
            }
        }
        #expect(try integer("0") == 0)
        #expect(try integer("-42") == -42)
        #expect(try integer("9223372036854775807") == .max)
        #expect(try integer("-9223372036854775808") == .min)
        #expect(try integer("9223372036854775808") == nil)
        #expect(try integer("1.0") == nil)
        #expect(try integer("1e3") == nil)
        #expect(try integer("\"1\"") == nil)
    }

    /// The eight-bytes-at-once string check finds the first byte that breaks the byte rule (ASCII
    /// from 0x20 up, not a quote or a backslash), for every byte value in every position of the
    /// word, also behind an earlier stop.
    @Test func wordStringCheckMatchesTheByteRule() {
        func isPlain(_ byte: UInt8) -> Bool {
            byte >= 0x20 && byte < 0x80 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\")
        }
        var mismatches: [String] = []
        for position in 0..<8 {
            for value in 0...255 {
                var bytes = Array("a Z~!#/]".utf8)
                bytes[position] = UInt8(value)
                let word = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
                let stops = JSONScanner.stringStops(word)
                let first = stops == 0 ? 8 : stops.trailingZeroBitCount / 8
                if first != (isPlain(UInt8(value)) ? 8 : position) {
                    mismatches.append("0x\(String(value, radix: 16)) at \(position)")
                }
                // Behind an earlier stop (a byte from 0x80 carries into later bytes), the earlier one is reported.
                if position > 0 {
                    bytes[position - 1] = 0xC3
                    let word = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
                    if JSONScanner.stringStops(word).trailingZeroBitCount / 8 != position - 1 {
                        mismatches.append("0x\(String(value, radix: 16)) after 0xC3 at \(position)")
                    }
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
    }

    /// A quote, an escape, a control character or UTF-8 at any offset of a long string (inside an
    /// eight-byte step or in the tail) is found: the string ends there, or is validated there.
    @Test func stringFastPathFindsEveryStop() throws {
        let plain = String(repeating: "abcdefgh", count: 4)
        for position in [0, 1, 7, 8, 15, 16, 30, 31] {
            var characters = Array(plain)
            characters[position] = "\""
            let text = "\"" + String(characters) + "\""
            let span = try JSONScanner.withScanner(over: ByteBuffer(string: text)) { scanner throws(JobRejection) in
                try scanner.scanString()
            }
            #expect(span.range == 1..<(1 + position), "quote at \(position)")
            for (insert, valid) in [("\u{01}", false), ("\\n", true), ("\\x", false), ("é", true)] {
                var characters = Array(plain)
                characters.replaceSubrange(position..<(position + 1), with: Array(insert))
                #expect(
                    (validate("\"" + String(characters) + "\"") == nil) == valid,
                    "\(insert.debugDescription) at \(position)")
            }
        }
        var invalidUTF8 = Array(plain.utf8)
        invalidUTF8[12] = 0xFF
        #expect(validate([UInt8(ascii: "\"")] + invalidUTF8 + [UInt8(ascii: "\"")])?.reason == .malformedJSON)
    }
}

@Suite struct JSONWriterTests {
    @Test func escapesAndSeparates() {
        var writer = JSONWriter()
        writer.beginObject()
        writer.member("s", "q\"\\\n\t\u{01}é")
        writer.member("n", -5)
        writer.member("absent", nil as Int?)
        writer.key("a")
        writer.beginArray()
        writer.integer(1)
        writer.null()
        writer.rawValue(ByteBuffer(string: #"{"x":[]}"#))
        writer.endArray()
        writer.endObject()
        #expect(Fixtures.text(writer.bytes) == #"{"s":"q\"\\\n\t\u0001é","n":-5,"a":[1,null,{"x":[]}]}"#)
    }

    /// The eight-bytes-at-once hex check agrees with the byte-by-byte rule for every byte value
    /// in every position of the word.
    @Test func wordHexCheckMatchesTheByteRule() {
        func isHex(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
        }
        var mismatches: [String] = []
        for position in 0..<8 {
            for value in 0...255 {
                var bytes = Array("0aF93bE7".utf8)
                bytes[position] = UInt8(value)
                let word = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
                if JSONScanner.areHexDigits(word) != isHex(UInt8(value)) {
                    mismatches.append("0x\(String(value, radix: 16)) at \(position)")
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
    }

    /// A token with one non-hex byte anywhere (inside a fast eight-byte step or in the tail) is
    /// not taken by the fast path.
    @Test func hexTokenFastPathStopsAtTheFirstNonHexByte() throws {
        let valid = String(repeating: "0123456789abcdef", count: 4)
        for position in [0, 7, 8, 31, 56, 63] {
            for bad in ["g", "G", "/", ":", "@", "`", " ", "é"] {
                var characters = Array(valid)
                characters[position] = Character(bad)
                let text = "\"" + String(characters) + "\""
                let range = try JSONScanner.withScanner(over: ByteBuffer(string: text)) {
                    scanner throws(JobRejection) in
                    scanner.scanHexToken()
                }
                #expect(range == nil, "\(bad) at \(position)")
            }
        }
        let range = try JSONScanner.withScanner(over: ByteBuffer(string: "\"" + valid + "\"")) {
            scanner throws(JobRejection) in
            scanner.scanHexToken()
        }
        #expect(range == 1..<65)
    }
}
