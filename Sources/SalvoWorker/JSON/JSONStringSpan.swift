/// Where a JSON string's contents sit in the scanned bytes (between the quotes), and whether they
/// hold escape sequences: without escapes the bytes *are* the string, so no decoding is needed.
struct JSONStringSpan: Sendable, Hashable {
    var range: Range<Int>
    var hasEscapes: Bool
}
