import NIOCore

/// A cursor over JSON text in memory that validates the grammar (RFC 8259, UTF-8 included) as it
/// moves, and reports where values begin and end instead of building them.
///
/// Why not Foundation: `JSONDecoder`/`JSONSerialization` build values and cannot hand back the
/// exact bytes of a sub-object, while a job's payload must pass to APNs unchanged; and a campaign
/// of 100,000 tokens must cost a fraction of a microsecond per token.
///
/// The scanner borrows the bytes of a `ByteBuffer` through an `UnsafeRawBufferPointer`. This is
/// the module's one unsafe pointer: it is created only in ``withScanner(over:_:)`` and never
/// escapes its closure.
struct JSONScanner {
    /// Deepest nesting of objects and arrays accepted; deeper input is rejected, not recursed into.
    static let maximumDepth = 64

    let bytes: UnsafeRawBufferPointer
    /// The next byte to read.
    var index = 0
    private var depth = 0

    private init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// Runs `body` with a scanner over the readable bytes of `buffer`; offsets it reports are
    /// relative to `buffer.readerIndex`.
    static func withScanner<R>(
        over buffer: ByteBuffer,
        _ body: (inout JSONScanner) throws(JobRejection) -> R
    ) throws(JobRejection) -> R {
        let result = buffer.withUnsafeReadableBytes { bytes in
            Result { () throws(JobRejection) -> R in
                var scanner = JSONScanner(bytes: bytes)
                return try body(&scanner)
            }
        }
        return try result.get()
    }

    // MARK: Bytes

    var isAtEnd: Bool { index >= bytes.count }

    @inline(__always)
    func peek() -> UInt8? {
        index < bytes.count ? bytes[index] : nil
    }

    @inline(__always)
    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    /// Skips whitespace, then consumes `byte` if it is next.
    @inline(__always)
    mutating func consume(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// `expectation` is a `StaticString` (text only needed for the error) so the common path
    /// passes a pointer, not a `String` to retain and release: the scanner expects a ':' or ','
    /// about ten times per job.
    @inline(__always)
    mutating func expect(_ byte: UInt8, _ expectation: StaticString) throws(JobRejection) {
        guard consume(byte) else { throw syntaxError(expecting: "\(expectation)") }
    }

    /// Only whitespace may follow the top-level value.
    mutating func expectEnd() throws(JobRejection) {
        skipWhitespace()
        guard isAtEnd else { throw syntaxError(expecting: "the end of the input") }
    }

    func syntaxError(expecting expectation: String) -> JobRejection {
        let found = isAtEnd ? "the input ended" : "found byte 0x\(String(bytes[index], radix: 16))"
        return JobRejection(.malformedJSON, "malformed JSON at byte \(index): expected \(expectation), \(found)")
    }

    /// The kind of the next value, after whitespace; nil at the end or on a byte no value starts with.
    mutating func peekKind() -> JSONValueKind? {
        skipWhitespace()
        return peek().flatMap(JSONValueKind.init(firstByte:))
    }

    // MARK: Containers

    /// Walks an object. `member` receives each key and must consume exactly one value.
    /// Returns the object's range, braces included.
    @discardableResult
    mutating func forEachMember(
        _ member: (JSONStringSpan, inout JSONScanner) throws(JobRejection) -> Void
    ) throws(JobRejection) -> Range<Int> {
        skipWhitespace()
        let start = index
        try enterContainer(opening: UInt8(ascii: "{"), "'{'")
        defer { depth -= 1 }
        if consume(UInt8(ascii: "}")) { return start..<index }
        while true {
            skipWhitespace()
            guard peek() == UInt8(ascii: "\"") else { throw syntaxError(expecting: "a string key") }
            let key = try scanString()
            try expect(UInt8(ascii: ":"), "':'")
            skipWhitespace()
            try member(key, &self)
            if consume(UInt8(ascii: ",")) { continue }
            try expect(UInt8(ascii: "}"), "',' or '}'")
            return start..<index
        }
    }

    /// Walks an array. `element` receives each element's position and must consume one value.
    @discardableResult
    mutating func forEachElement(
        _ element: (Int, inout JSONScanner) throws(JobRejection) -> Void
    ) throws(JobRejection) -> Range<Int> {
        skipWhitespace()
        let start = index
        try enterContainer(opening: UInt8(ascii: "["), "'['")
        defer { depth -= 1 }
        if consume(UInt8(ascii: "]")) { return start..<index }
        var position = 0
        while true {
            skipWhitespace()
            try element(position, &self)
            position += 1
            if consume(UInt8(ascii: ",")) { continue }
            try expect(UInt8(ascii: "]"), "',' or ']'")
            return start..<index
        }
    }

    private mutating func enterContainer(opening: UInt8, _ expectation: StaticString) throws(JobRejection) {
        guard peek() == opening else { throw syntaxError(expecting: "\(expectation)") }
        guard depth < Self.maximumDepth else {
            throw JobRejection(
                .malformedJSON, "malformed JSON at byte \(index): nesting deeper than \(Self.maximumDepth)")
        }
        depth += 1
        index += 1
    }

    // MARK: Values

    /// Validates and steps over one value of any kind; returns its range.
    ///
    /// Containers are walked with a stack of bits (object or array per open level) rather than
    /// by recursing through ``forEachMember(_:)`` closures: every job's payload is skipped this
    /// way, and per-user mode pays that once per notification. The grammar and the messages are
    /// those of the member-by-member walk.
    @discardableResult
    mutating func skipValue() throws(JobRejection) -> Range<Int> {
        skipWhitespace()
        let start = index
        // Bit n is set when the container opened n levels into this value is an object.
        var objects: UInt64 = 0
        var levels = 0
        nextValue: while true {
            switch peekKind() {
            case .object:
                try enterContainer(opening: UInt8(ascii: "{"), "'{'")
                objects |= 1 << UInt64(levels)
                levels += 1
                if !consume(UInt8(ascii: "}")) {
                    try skipMemberName()
                    continue nextValue
                }
                depth -= 1
                levels -= 1
            case .array:
                try enterContainer(opening: UInt8(ascii: "["), "'['")
                objects &= ~(1 << UInt64(levels))
                levels += 1
                if !consume(UInt8(ascii: "]")) { continue nextValue }
                depth -= 1
                levels -= 1
            case .string:
                _ = try scanString()
            case .number:
                _ = try scanNumber()
            case .true:
                try scanLiteral("true")
            case .false:
                try scanLiteral("false")
            case .null:
                try scanLiteral("null")
            case nil:
                throw syntaxError(expecting: "a value")
            }
            // A value ended: close what it completes, or go on to the next element or member.
            while levels > 0 {
                let isObject = objects & (1 << UInt64(levels - 1)) != 0
                if consume(UInt8(ascii: ",")) {
                    if isObject { try skipMemberName() }
                    continue nextValue
                }
                if isObject {
                    try expect(UInt8(ascii: "}"), "',' or '}'")
                } else {
                    try expect(UInt8(ascii: "]"), "',' or ']'")
                }
                depth -= 1
                levels -= 1
            }
            return start..<index
        }
    }

    /// Steps over `"name":` inside an object.
    private mutating func skipMemberName() throws(JobRejection) {
        skipWhitespace()
        guard peek() == UInt8(ascii: "\"") else { throw syntaxError(expecting: "a string key") }
        _ = try scanString()
        try expect(UInt8(ascii: ":"), "':'")
    }

    private mutating func scanLiteral(_ literal: String) throws(JobRejection) {
        for byte in literal.utf8 {
            guard index < bytes.count, bytes[index] == byte else { throw syntaxError(expecting: literal) }
            index += 1
        }
    }

    /// Steps over `-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`; `isInteger` when neither
    /// fraction nor exponent is present.
    mutating func scanNumber() throws(JobRejection) -> (range: Range<Int>, isInteger: Bool) {
        skipWhitespace()
        let start = index
        if peek() == UInt8(ascii: "-") { index += 1 }
        if peek() == UInt8(ascii: "0") {
            index += 1
        } else {
            guard skipDigits() > 0 else { throw syntaxError(expecting: "a digit") }
        }
        var isInteger = true
        if peek() == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard skipDigits() > 0 else { throw syntaxError(expecting: "a digit after '.'") }
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index += 1 }
            guard skipDigits() > 0 else { throw syntaxError(expecting: "an exponent digit") }
        }
        return (start..<index, isInteger)
    }

    private mutating func skipDigits() -> Int {
        let start = index
        while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 { index += 1 }
        return index - start
    }

    /// Reads an integer value. Nil when the next value is not a number, has a fraction or
    /// exponent (`10.0` is not accepted where the schema says integer), or overflows `Int64`.
    mutating func scanInteger() throws(JobRejection) -> Int64? {
        guard peekKind() == .number else { return nil }
        let (range, isInteger) = try scanNumber()
        guard isInteger else { return nil }
        var digits = range
        let isNegative = bytes[digits.lowerBound] == UInt8(ascii: "-")
        if isNegative { digits = digits.dropFirst() }
        var value: Int64 = 0
        for offset in digits {
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let digit = Int64(bytes[offset] &- UInt8(ascii: "0"))
            let (sum, overflow2) =
                isNegative ? times10.subtractingReportingOverflow(digit) : times10.addingReportingOverflow(digit)
            guard !overflow1, !overflow2 else { return nil }
            value = sum
        }
        return value
    }
}
