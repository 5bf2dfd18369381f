/// The steps of a worker's start, in the order ``WorkerEngine/run()`` takes them. Each one that
/// leaves something running (a Kafka client, a follower, the APNs pools, the dispatch core, the
/// engine's tasks) records how to stop it (``StartedParts``), so a failure at any step, or an
/// order to stop, stops what the earlier steps started.
///
/// Package-visible so that tests can fail the start at each step in turn
/// (``WorkerEngine/StartStepFinished``) and see that nothing is left running.
package enum WorkerStartStep: String, CaseIterable, Sendable {
    /// The idempotent producer for feedback, dead letters, retry hand-offs and progress.
    case producer
    /// The state topics the configuration needs exist and are compacted.
    case stateTopics
    /// A group with no commits is not about to replay an old backlog.
    case newGroups
    /// The job checkpoint follower, read to its end (`topics.progress`).
    case checkpoints
    /// The campaign control follower, read to its end (`topics.control`).
    case campaignControl
    /// The two lane consumers (campaign and per-user groups).
    case consumers
    /// The provider-token registry the pools and the broadcast sender share.
    case tokenProviders
    /// The broadcast sender (one channel client per app).
    case broadcastSender
    /// One started APNs pool per app and environment.
    case pools
    /// The dispatch core, the broadcast sender attached, the control in force applied.
    case core
    /// The publisher, progress, consumer, assignment-watcher and lag tasks: the worker runs.
    case tasks
}
