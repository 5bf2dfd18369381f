import Foundation

/// Follows the mock's `--record` file while the run goes on and feeds every line to the
/// measurement (``LoadTestRecordLines``). For a mock on the same host or volume; from another
/// container or pod, ``LoadTestDeliveriesPoller`` reads the same lines over the admin listener.
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
        var lines = LoadTestRecordLines(measurement: measurement)
        while !Task.isCancelled {
            readAvailable(offset: &offset, lines: &lines)
            try? await Task.sleep(for: pollInterval)
        }
        readAvailable(offset: &offset, lines: &lines)
    }

    /// Reads the bytes after `offset`, consuming complete lines. Returns the lines consumed.
    @discardableResult
    func readAvailable(offset: inout UInt64, lines: inout LoadTestRecordLines) -> Int {
        guard let handle = FileHandle(forReadingAtPath: path) else { return 0 }
        defer { try? handle.close() }
        guard (try? handle.seek(toOffset: offset)) != nil, let data = try? handle.readToEnd(), !data.isEmpty else {
            return 0
        }
        offset += UInt64(data.count)
        return lines.consume(data)
    }
}
