#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One page of the record file, served by the admin listener's `GET /deliveries`: the whole lines
/// that start at or after a byte offset, at most a page's worth, and the offset to ask for next.
///
/// A load generator in another container or pod cannot tail the mock's file, so it pages through
/// it over HTTP instead; the byte offset is the cursor because the file only grows (the mock
/// truncates it once, at start), so an offset stays valid and costs the mock no state per reader.
/// A page ends at the last newline it holds: a half-flushed line is served with the next page.
struct MockRecordPage: Sendable, Equatable {
    /// Complete NDJSON lines (possibly none).
    var lines: [UInt8]
    /// Where the next page starts: the request's offset plus `lines.count`.
    var nextOffset: UInt64
    /// The file's size when it was read.
    var fileSize: UInt64

    /// The default page: about 3,000 record lines.
    static let defaultMaximumBytes = 1 << 20
    /// Page sizes a client may ask for. The smallest still holds the longest record line (token,
    /// topic and collapse id at their limits, escaped, come to well under 2 KiB).
    static let maximumBytesRange = 4096...(8 << 20)

    /// Reads the page at `offset`; nil when the offset lies beyond the end of the file (the mock
    /// restarted and truncated it, or the client invented the offset).
    static func read(path: String, offset: UInt64, maximumBytes: Int) throws(MockAPNsError) -> MockRecordPage? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw MockAPNsError(
                .fileUnreadable, "cannot open record file \(path)", underlying: String(cString: strerror(errno)))
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw MockAPNsError(
                .fileUnreadable, "cannot stat record file \(path)", underlying: String(cString: strerror(errno)))
        }
        let size = UInt64(status.st_size)
        guard offset <= size else { return nil }
        let wanted = Int(min(UInt64(maximumBytes), size - offset))
        var bytes = [UInt8](repeating: 0, count: wanted)
        var filled = 0
        while filled < wanted {
            let count = bytes.withUnsafeMutableBytes { buffer in
                pread(descriptor, buffer.baseAddress! + filled, wanted - filled, off_t(offset) + off_t(filled))
            }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else {
                throw MockAPNsError(
                    .fileUnreadable, "cannot read record file \(path)", underlying: String(cString: strerror(errno)))
            }
            if count == 0 { break }
            filled += count
        }
        let end = bytes[..<filled].lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0
        bytes.removeSubrange(end...)
        return MockRecordPage(lines: bytes, nextOffset: offset + UInt64(end), fileSize: size)
    }
}
