/// A `String` as a JSON string literal: quotes, backslashes and control characters escaped, the
/// rest as is. For text the program writes itself (error bodies, log lines); the worker's records
/// use `JSONWriter`, which works on bytes.
public enum JSONStringLiteral {
    /// `text` between quotes, escaped.
    public static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
