import Foundation
import SalvoAPNs

/// Follows the mock's `--record` file (NDJSON, docs/mock-apns.md) while the run goes on and
/// feeds every line to the measurement.
///
/// The mock appends lines in batches (every second or 64 KiB), so a read may end inside a line:
/// the tail is kept until its newline arrives. Only `apns_id` and `received_at_ms` are needed,
/// and the mock writes them in a fixed form, so they are sliced out rather than decoded: a
/// million-line file is tailed in well under a second.
public struct LoadTestRecordTailer: Sendable {
    public let path: String
    private let measurement: LoadTestMeasurement
    /// How often the file is polled. Default: 200 ms.
    public var pollInterval: Duration = .milliseconds(200)

    public init(path: String, measurement: LoadTestMeasurement) {
        self.path = path
        self.measurement = measurement
    }

    /// Tails until cancelled, then reads what is left once more. Waits for the file to appear.
    public func run() async {
        var offset: UInt64 = 0
        var partial: [UInt8] = []
        while !Task.isCancelled {
            readAvailable(offset: &offset, partial: &partial)
            try? await Task.sleep(for: pollInterval)
        }
        readAvailable(offset: &offset, partial: &partial)
    }

    /// Reads the bytes after `offset`, consuming complete lines. Returns the lines consumed.
    @discardableResult
    func readAvailable(offset: inout UInt64, partial: inout [UInt8]) -> Int {
        guard let handle = FileHandle(forReadingAtPath: path) else { return 0 }
        defer { try? handle.close() }
        guard (try? handle.seek(toOffset: offset)) != nil, let data = try? handle.readToEnd(), !data.isEmpty else { return 0 }
        offset += UInt64(data.count)
        partial.append(contentsOf: data)
        var lines = 0
        var start = partial.startIndex
        while let newline = partial[start...].firstIndex(of: UInt8(ascii: "\n")) {
            if let (id, received) = Self.parse(partial[start..<newline]) {
                measurement.observeRecord(apnsID: id, receivedAtMilliseconds: received)
                lines += 1
            }
            start = newline + 1
        }
        partial.removeSubrange(partial.startIndex..<start)
        return lines
    }

    /// `apns_id` and `received_at_ms` of one record line; nil for anything else.
    static func parse(_ line: ArraySlice<UInt8>) -> (APNsID, Int64)? {
        guard let idStart = line.firstRange(of: Array(#""apns_id":""#.utf8))?.upperBound,
              line.endIndex - idStart >= APNsID.textLength,
              let id = APNsID(headerValue: line[idStart..<idStart + APNsID.textLength]),
              let timeStart = line.firstRange(of: Array(#""received_at_ms":"#.utf8))?.upperBound
        else { return nil }
        var value: Int64 = 0
        var index = timeStart
        while index < line.endIndex, let digit = digitValue(line[index]) {
            value = value * 10 + digit
            index += 1
        }
        return index > timeStart ? (id, value) : nil
    }

    private static func digitValue(_ byte: UInt8) -> Int64? {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") ? Int64(byte - UInt8(ascii: "0")) : nil
    }
}
