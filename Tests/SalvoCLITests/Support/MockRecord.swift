import Foundation
import SalvoTestSupport

/// The mock APNs's `--record` file, read back: how many times each token was accepted, and when.
struct MockRecord {
    /// Token → times accepted (more than once: a duplicate delivery).
    var acceptedCount: [String: Int] = [:]
    /// Token → receive time of its first acceptance, in UNIX milliseconds.
    var firstReceivedAt: [String: Int64] = [:]

    init(contentsOf url: URL) throws {
        guard FileManager.default.fileExists(atPath: url.path) else { return }
        let data = try Data(contentsOf: url)
        // The mock appends with one `write` per 64 KiB batch while the test reads; a read may see
        // only a prefix of that write, cut inside a line. Only newline-terminated lines are whole.
        let complete = data[..<(data.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? data.startIndex)]
        for line in complete.split(separator: UInt8(ascii: "\n")) where !line.isEmpty {
            guard let object = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
                let token = object["token"] as? String
            else {
                throw TestFailure(
                    "record line is not an accepted notification: \(String(decoding: line, as: UTF8.self))")
            }
            acceptedCount[token, default: 0] += 1
            if firstReceivedAt[token] == nil, let received = object["received_at_ms"] as? NSNumber {
                firstReceivedAt[token] = received.int64Value
            }
        }
    }

    var distinctTokens: Int { acceptedCount.count }
    /// Acceptances beyond the first, summed over tokens.
    var duplicates: Int { acceptedCount.values.reduce(0) { $0 + $1 - 1 } }
}
