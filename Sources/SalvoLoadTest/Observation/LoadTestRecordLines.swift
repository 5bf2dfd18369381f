import SalvoAPNs

/// Turns the mock's record stream (NDJSON, docs/mock-apns.md) into deliveries for the
/// measurement, whichever way the bytes arrive: tailed from the file (``LoadTestRecordTailer``)
/// or paged from the admin listener (``LoadTestDeliveriesPoller``).
///
/// Bytes may end inside a line (the mock flushes in batches), so the tail is kept until its
/// newline arrives. Only `apns_id` and `received_at_ms` are needed, and the mock writes them in a
/// fixed form, so they are sliced out rather than decoded: a million lines take well under a second.
struct LoadTestRecordLines: Sendable {
    let measurement: LoadTestMeasurement
    private var partial: [UInt8] = []

    init(measurement: LoadTestMeasurement) {
        self.measurement = measurement
    }

    /// Feeds every complete line of `partial + bytes` to the measurement; returns how many were records.
    @discardableResult
    mutating func consume(_ bytes: some Collection<UInt8>) -> Int {
        partial.append(contentsOf: bytes)
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

    /// Drops a partial line (the stream restarted from its beginning).
    mutating func reset() {
        partial.removeAll()
    }

    /// `apns_id` (a broadcast's `request_id`) and `received_at_ms` of one record line; nil for
    /// anything else.
    static func parse(_ line: ArraySlice<UInt8>) -> (APNsID, Int64)? {
        guard
            let idStart =
                (line.firstRange(of: Array(#""apns_id":""#.utf8)) ?? line.firstRange(of: Array(#""request_id":""#.utf8)))?
                .upperBound,
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
