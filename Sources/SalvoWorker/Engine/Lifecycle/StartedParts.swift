/// What a worker's start has started so far, each part with how it stops.
///
/// The start records a part as soon as it exists; when a later step fails, or the worker is told
/// to stop before it runs, ``stopAll()`` stops every recorded part, the last started first (the
/// core before the pools it sends on, the consumers before the followers read ahead of them, the
/// producer last). Once the worker runs, the parts the drain closes in its own order (it stops
/// pulling before it closes anything) are ``handOver(_:)``-ed to it, and ``stopAll()`` after the
/// drain stops the rest.
///
/// A value owned by the one task that runs the start: nothing here is shared.
struct StartedParts: Sendable {
    private struct Part: Sendable {
        var step: WorkerStartStep
        var stop: @Sendable () async -> Void
    }

    private var parts: [Part] = []

    /// The steps whose parts are still to be stopped here, in the order they started.
    var steps: [WorkerStartStep] { parts.map(\.step) }

    /// Records what `step` started; `stop` is awaited by ``stopAll()``.
    mutating func started(_ step: WorkerStartStep, stop: @escaping @Sendable () async -> Void) {
        parts.append(Part(step: step, stop: stop))
    }

    /// Forgets the parts of `steps`: from now on something else (the drain) stops them.
    mutating func handOver(_ steps: Set<WorkerStartStep>) {
        parts.removeAll { steps.contains($0.step) }
    }

    /// Stops every recorded part, the last started first, each after the one before it
    /// returned, and forgets them.
    mutating func stopAll() async {
        let stopping = parts
        parts.removeAll()
        // Unstructured, so that the cancellation which may have ended the start does not cut
        // the stops short.
        await Task {
            for part in stopping.reversed() { await part.stop() }
        }.value
    }
}
