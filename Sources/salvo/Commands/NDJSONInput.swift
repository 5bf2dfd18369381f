import Foundation

/// A newline-delimited JSON input, read whole and validated before anything is sent, so a bad
/// line never leaves a file half-enqueued.
///
/// A line's bytes are kept exactly (without its `\n` or `\r\n` terminator); lines holding only
/// whitespace are skipped.
struct NDJSONInput {
    struct Line {
        /// 1-based, counting skipped lines too, as an editor shows it.
        var number: Int
        var bytes: ArraySlice<UInt8>
        var key: [UInt8]?
    }

    private(set) var lines: [Line] = []
    private(set) var byteCount = 0

    /// Reads `path` (`-` is standard input) and checks every line: valid JSON, within
    /// `maxLineBytes`, and, if `keyField` is set, an object with that top-level string field.
    static func load(path: String, keyField: String?, maxLineBytes: Int) throws -> NDJSONInput {
        let bytes: [UInt8]
        if path == "-" {
            bytes = Array(FileHandle.standardInput.readDataToEndOfFile())
        } else {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw CommandFailure("cannot read \(path)", exit: .data)
            }
            bytes = Array(data)
        }
        var input = NDJSONInput()
        var start = bytes.startIndex
        var number = 0
        while start < bytes.endIndex {
            number += 1
            let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.endIndex
            var end = newline
            if end > start, bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
            let line = bytes[start..<end]
            start = newline == bytes.endIndex ? newline : newline + 1
            guard line.contains(where: { !isWhitespace($0) }) else { continue }
            try input.append(line, number: number, keyField: keyField, maxLineBytes: maxLineBytes)
        }
        return input
    }

    private mutating func append(_ line: ArraySlice<UInt8>, number: Int, keyField: String?, maxLineBytes: Int) throws {
        guard line.count <= maxLineBytes else {
            throw CommandFailure(
                "line \(number): \(line.count) bytes, above the \(maxLineBytes)-byte message limit; nothing was sent",
                exit: .data)
        }
        let json: Any
        do {
            json = try JSONSerialization.jsonObject(with: Data(line), options: [.fragmentsAllowed])
        } catch {
            let reason = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "\(error)"
            throw CommandFailure("line \(number): invalid JSON: \(reason); nothing was sent", exit: .data)
        }
        var key: [UInt8]?
        if let keyField {
            guard let object = json as? [String: Any], let value = object[keyField] as? String else {
                throw CommandFailure(
                    "line \(number): no top-level string field \"\(keyField)\" for the key; nothing was sent",
                    exit: .data)
            }
            key = Array(value.utf8)
        }
        lines.append(Line(number: number, bytes: line, key: key))
        byteCount += line.count
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
            || byte == UInt8(ascii: "\n")
    }
}
