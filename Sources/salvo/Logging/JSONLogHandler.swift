import Foundation
import Logging
import SalvoAPNs
import SalvoPrimitives
// The C time structures' fields (timespec, tm) read below are attributed to the toolchain's shim
// module on Linux; MemberImportVisibility asks for it by name.
import SwiftOverlayShims

/// One JSON object per line on stderr, for log shippers (`log_format: json`): `ts` (RFC 3339,
/// UTC, milliseconds), `level`, `logger`, `msg`, `source`, and every metadata key at top level
/// (prefixed with `meta.` if it would shadow one of those).
///
/// A line is built in full and written with one `write(2)`, so concurrent loggers never interleave
/// within a line.
struct JSONLogHandler: LogHandler {
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info
    var metadataProvider: Logger.MetadataProvider?
    private let label: String

    init(label: String, metadataProvider: Logger.MetadataProvider? = nil) {
        self.label = label
        self.metadataProvider = metadataProvider
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { $1 } }
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        Self.write(
            Self.line(
                level: event.level, label: label, message: event.message.description, source: event.source,
                metadata: merged),
            to: STDERR_FILENO)
    }

    private static let reserved: Set<String> = ["ts", "level", "logger", "msg", "source"]

    /// One log line, newline included.
    static func line(
        level: Logger.Level, label: String, message: String, source: String, metadata: Logger.Metadata
    ) -> String {
        var fields: [(String, String)] = [
            ("ts", timestamp()), ("level", level.rawValue), ("logger", label), ("msg", message), ("source", source),
        ]
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
            fields.append((reserved.contains(key) ? "meta.\(key)" : key, value.description))
        }
        var line = "{"
        for (index, (key, value)) in fields.enumerated() {
            if index > 0 { line += "," }
            line += JSONWriter.quoted(key) + ":" + JSONWriter.quoted(value)
        }
        return line + "}\n"
    }

    /// Writes `line` with one `write(2)`.
    static func write(_ line: String, to descriptor: Int32) {
        var bytes = Array(line.utf8)
        bytes.withUnsafeMutableBytes { buffer in
            _ = Foundation.write(descriptor, buffer.baseAddress, buffer.count)
        }
    }

    private static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
            Int(parts.tm_mday),
            Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), Int(now.tv_nsec / 1_000_000))
    }
}
