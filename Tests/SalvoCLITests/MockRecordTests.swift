import Foundation
import SalvoTestSupport
import Testing

/// The e2e tests read the mock's record file while the mock appends to it; a read can end inside
/// a line the mock is still writing.
@Suite("mock record reader")
struct MockRecordTests {
    @Test("a line cut by a concurrent write is left for the next read; whole lines are counted")
    func partialLastLineIsIgnored() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "salvo-record-\(UInt64.random(in: 0 ... .max)).ndjson")
        defer { try? FileManager.default.removeItem(at: url) }
        let whole = #"{"token":"aa","received_at_ms":5}"# + "\n" + #"{"token":"aa","received_at_ms":9}"# + "\n"
        try Data((whole + #"{"token":"bb","rec"#).utf8).write(to: url)

        let record = try MockRecord(contentsOf: url)
        #expect(record.acceptedCount == ["aa": 2])
        #expect(record.firstReceivedAt == ["aa": 5])
        #expect(record.duplicates == 1)

        try Data((whole + #"{"token":"bb","received_at_ms":12}"# + "\n").utf8).write(to: url)
        #expect(try MockRecord(contentsOf: url).acceptedCount == ["aa": 2, "bb": 1])
    }

    @Test("a whole line that is not an accepted notification is an error")
    func garbageLineThrows() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "salvo-record-\(UInt64.random(in: 0 ... .max)).ndjson")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data("{\"nope\":1}\n".utf8).write(to: url)
        #expect(throws: TestFailure.self) { try MockRecord(contentsOf: url) }
    }
}
