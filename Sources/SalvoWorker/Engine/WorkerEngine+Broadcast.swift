import NIOCore
import SalvoAPNs

/// The engine's broadcast sender: one ``BroadcastSender`` for every app, on the same
/// provider-token registry as the device pools (one JWT per team and key), handed to the core
/// once it exists and shut down after the drain, when no broadcast is in flight any more.
extension WorkerEngine {
    func makeBroadcastSender(
        _ providers: APNsTokenProviderRegistry<ContinuousClock>
    ) throws(APNsError) -> BroadcastSender {
        // Management endpoints only for Apple's environments: a custom one (a gateway, the mock)
        // has no known channel-management host, so APNs applies the storage rule itself.
        try BroadcastSender(apps: configuration.apps, eventLoopGroup: eventLoopGroup, tokenProviders: providers)
    }

    /// Lets the core send broadcasts; before any consumer task hands it a record.
    func attach(_ sender: BroadcastSender, to core: NIOLoopBound<WorkerCore<ContinuousClock>>) async throws {
        try await eventLoop.submit {
            core.value.broadcasts.send = { job, answer in
                Task { answer(await sender.send(job)) }
            }
        }.get()
    }
}
