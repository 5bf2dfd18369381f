/// Builds jobs ahead of their due time on a task of its own, so the sender only sleeps and
/// produces: a 10,000-token campaign job (token search, apns-id hashing, JSON) is ready before
/// its time instead of making the per-user jobs due meanwhile late. The builder stays at most
/// ``lookahead`` ahead of the schedule, which bounds the memory held in built jobs.
struct LoadTestJobFeed: Sendable {
    /// Jobs due at one instant (a job and, sometimes, its duplicate).
    struct Item: Sendable {
        var due: ContinuousClock.Instant
        var jobs: [LoadTestJob]
    }

    /// How far ahead of the schedule jobs are built. Default: 1 s.
    static let lookahead: Duration = .seconds(1)

    let items: AsyncThrowingStream<Item, any Error>
    private let builder: Task<Void, Never>

    /// Starts building. Every job is registered with `measurement` before it is handed over.
    init(
        scenario: LoadTestScenario, runID: String, measurement: LoadTestMeasurement, clock: ContinuousClock,
        start: ContinuousClock.Instant
    ) {
        let (items, continuation) = AsyncThrowingStream.makeStream(of: Item.self)
        self.items = items
        self.builder = Task {
            var factory = LoadTestJobFactory(
                scenario: scenario, runID: runID, startMilliseconds: measurement.startMilliseconds)
            do {
                for arrival in LoadTestSchedule(phases: scenario.phases) {
                    let due = start.advanced(by: .nanoseconds(arrival.offsetNanoseconds))
                    let buildFrom = due.advanced(by: .zero - Self.lookahead)
                    if clock.now < buildFrom { try await clock.sleep(until: buildFrom) }
                    let jobs = try factory.jobs(for: arrival)
                    for job in jobs { measurement.register(job) }
                    continuation.yield(Item(due: due, jobs: jobs))
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
    }

    /// Stops the builder (if still running) and waits for it.
    func stop() async {
        builder.cancel()
        await builder.value
    }
}
