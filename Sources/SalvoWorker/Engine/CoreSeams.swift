import Logging
import NIOCore

/// What the core is wired to, in one record: the event loop it and its pools run on, its clock,
/// its logger, and the closures its results leave by for the engine's other threads — records to
/// the publisher task, done offsets to the lane consumers, statistics snapshots to the engine's
/// lock-protected copy. Closures, so the core's tests collect what goes out on their embedded loop.
struct CoreSeams<C: Clock> {
    let eventLoop: any EventLoop
    let clock: C
    let logger: Logger
    /// Hands a record to the publisher task (the core counted it in its ``RecordBacklog``).
    let publish: @Sendable (PendingRecord) -> Void
    /// A job completed: its offset may commit.
    let markDone: @Sendable (SourcePosition) -> Void
    let shareStatistics: @Sendable (WorkerStatistics) -> Void
}
