import Testing

@testable import SalvoWorker

/// A job's done set and its counts: done ranges as a checkpoint records them, what is left to
/// send when it resumes, and the unconfirmed sends the bound holds.
@Suite struct TokenProgressTests {
    @Test("done ranges merge adjacent notifications and skip the ones not done, across 64-bit words")
    func doneRanges() {
        var progress = TokenProgress(jobID: "j", count: 200)
        for index: Int32 in [0, 1, 2, 5, 63, 64, 65, 199] { progress.finished(index, records: 0) }
        #expect(progress.doneRanges() == [0..<3, 5..<6, 63..<66, 199..<200])
        #expect(progress.prefix == 3 && progress.doneCount == 8)
        #expect(progress.undoneRanges() == [3..<5, 6..<63, 66..<199])
        progress.finished(5, records: 0)
        #expect(progress.doneCount == 8, "done twice counts once")
    }

    @Test("a job resumed from a checkpoint starts with its ranges done, taken and confirmed")
    func resumed() {
        let progress = TokenProgress(jobID: "j", count: 100, done: [0..<10, 50..<60, 95..<120])
        #expect(progress.doneCount == 25)
        #expect(progress.undoneRanges() == [10..<50, 60..<95])
        #expect(progress.taken == 25 && progress.confirmed == 25 && progress.unconfirmed == 0)
    }

    @Test("a notification with a record is done once the record is acknowledged")
    func recordsHoldTheDone() {
        var progress = TokenProgress(jobID: "j", count: 4)
        progress.finished(0, records: 2)
        progress.finished(1, records: 0)
        #expect(progress.doneRanges() == [1..<2])
        progress.recordAcknowledged(0)
        #expect(progress.doneRanges() == [1..<2], "one of two records")
        progress.recordAcknowledged(0)
        #expect(progress.doneRanges() == [0..<2])
    }

    @Test("unconfirmed: taken less what the last acknowledged checkpoint recorded done")
    func unconfirmedCount() {
        var progress = TokenProgress(jobID: "j", count: 1_000)
        progress.onTaken(300)
        for index in Int32(0)..<100 { progress.finished(index, records: 0) }
        #expect(progress.unconfirmed == 300 && progress.unwritten == 100)
        let written = progress.onWritten()
        #expect(written == 100 && progress.unwritten == 0)
        #expect(progress.unconfirmed == 300, "written is not confirmed")
        progress.onConfirmed(written)
        #expect(progress.unconfirmed == 200)
        progress.onConfirmed(50)
        #expect(progress.confirmed == 100, "an older acknowledgement never moves it back")
    }
}
