import Logging
import SalvoKafka
import Synchronization

/// Follows `salvo.control` for one worker: reads it from the beginning at start (every partition,
/// no consumer group, so every worker sees every command), then live, and publishes each change
/// as a new ``CampaignControlState`` snapshot.
///
/// ```swift
/// let follower = try CampaignControlFollower(topic: topics.control, client: kafka, logger: logger)
/// try await follower.start()
/// let initial = try await follower.caughtUp(timeout: .seconds(30))   // before taking jobs
/// for await state in follower.updates { core.controlChanged(state) }
/// ```
package final class CampaignControlFollower: Sendable {
    private struct Shared {
        var state = CampaignControlState()
        var isCaughtUp = false
        var caughtUpWaiters: [UInt64: CheckedContinuation<Bool, Never>] = [:]
        var malformedRecords = 0
    }

    package let topic: String
    /// The latest snapshot after every change (and one when caught up); only the newest is kept
    /// for a slow reader, which is all it needs. One reader.
    package let updates: AsyncStream<CampaignControlState>
    private let continuation: AsyncStream<CampaignControlState>.Continuation
    private let shared = Mutex(Shared())
    private let reader = Mutex<KafkaTopicReader?>(nil)
    private let onChange: (@Sendable (CampaignControlState) -> Void)?
    private let logger: Logger

    /// - Parameter onChange: Called with each new snapshot on the reader's thread (keep it short,
    ///   e.g. hop to an event loop), as an alternative to iterating `updates`.
    package init(
        topic: String,
        client: KafkaClientConfiguration,
        fetchWait: Duration = .milliseconds(100),
        logger: Logger = Logger(label: "salvo.campaigns.control"),
        onChange: (@Sendable (CampaignControlState) -> Void)? = nil
    ) throws(KafkaError) {
        (updates, continuation) = AsyncStream.makeStream(
            of: CampaignControlState.self, bufferingPolicy: .bufferingNewest(1))
        self.topic = topic
        self.onChange = onChange
        self.logger = logger
        var readerClient = client
        readerClient.clientID = client.clientID + "-control"
        let reader = try KafkaTopicReader(topic: topic, client: readerClient, fetchWait: fetchWait, logger: logger) {
            [weak self] event in
            self?.handle(event)
        }
        self.reader.withLock { $0 = reader }
    }

    /// Starts reading; fails with `.unknownTopic` when the topic is missing.
    package func start(timeout: Duration = .seconds(10)) async throws(KafkaError) {
        guard let reader = reader.withLock({ $0 }) else {
            throw KafkaError(code: .shutdown, message: "the control follower is closed")
        }
        try await reader.start(timeout: timeout)
    }

    /// The commands in force now.
    package var current: CampaignControlState { shared.withLock { $0.state } }

    /// Whether every command produced before `start` has been folded in.
    package var isCaughtUp: Bool { shared.withLock { $0.isCaughtUp } }

    /// Records that could not be read (skipped and logged).
    package var malformedRecords: Int { shared.withLock { $0.malformedRecords } }

    /// Waits until the follower has read the topic to the end it had at start, and returns the
    /// state then. A worker calls it before taking jobs, so it never sends what was cancelled
    /// before it started. Throws `.timedOut` after `timeout` (the broker is unreachable).
    package func caughtUp(timeout: Duration) async throws(KafkaError) -> CampaignControlState {
        let id = UInt64.random(in: 0...UInt64.max)
        let timer = Task { [self] in
            try? await Task.sleep(for: timeout)
            let waiter = shared.withLock { $0.caughtUpWaiters.removeValue(forKey: id) }
            waiter?.resume(returning: false)
        }
        defer { timer.cancel() }
        let reached = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let ready = shared.withLock { shared in
                guard !shared.isCaughtUp else { return true }
                shared.caughtUpWaiters[id] = continuation
                return false
            }
            if ready { continuation.resume(returning: true) }
        }
        guard reached else {
            throw KafkaError(code: .timedOut, message: "\(topic) was not read to its end within \(timeout)")
        }
        return current
    }

    /// Stops following. The last snapshot stays readable through `current`.
    package func close() async {
        let reader = reader.withLock { reader in
            defer { reader = nil }
            return reader
        }
        await reader?.close()
        continuation.finish()
        let waiters = shared.withLock { shared in
            defer { shared.caughtUpWaiters = [:] }
            return Array(shared.caughtUpWaiters.values)
        }
        // Nobody waits forever on a closed follower.
        for waiter in waiters { waiter.resume(returning: false) }
    }

    private func handle(_ event: KafkaTopicReaderEvent) {
        switch event {
        case .message(let message):
            fold(message)
        case .caughtUp:
            let (state, waiters) = shared.withLock { shared in
                shared.isCaughtUp = true
                defer { shared.caughtUpWaiters = [:] }
                return (shared.state, Array(shared.caughtUpWaiters.values))
            }
            logger.info("campaign control read to its end", metadata: ["campaigns": "\(state.commands.count)"])
            publish(state)
            for waiter in waiters { waiter.resume(returning: true) }
        case .error(let error):
            logger.warning(
                "reading the campaign control topic failed", metadata: ["topic": "\(topic)", "error": "\(error)"])
        }
    }

    private func fold(_ message: KafkaConsumerMessage) {
        let changed: CampaignControlState?
        if message.value.isEmpty, let key = message.key {
            // A tombstone: the campaign's command is deleted.
            changed = shared.withLock { shared in
                shared.state.remove(campaignID: String(decoding: key, as: UTF8.self)) ? shared.state : nil
            }
        } else {
            do {
                let command = try CampaignCommand.decode(key: message.key, value: message.value)
                let (state, live) = shared.withLock { shared in
                    (shared.state.apply(command) ? shared.state : nil, shared.isCaughtUp)
                }
                changed = state
                // Live commands are news; the replay at start would repeat every command ever given.
                if state != nil {
                    logger.log(
                        level: live ? .notice : .debug,
                        "campaign command",
                        metadata: [
                            "campaign_id": "\(command.campaignID)", "action": "\(command.action.rawValue)",
                            "by": "\(command.by)",
                            "reason": "\(command.reason)", "at": "\(command.at)",
                        ])
                }
            } catch {
                shared.withLock { $0.malformedRecords += 1 }
                logger.warning(
                    "skipping a control record that cannot be read",
                    metadata: ["partition": "\(message.partition)", "offset": "\(message.offset)", "error": "\(error)"])
                changed = nil
            }
        }
        if let changed, shared.withLock({ $0.isCaughtUp }) {
            publish(changed)
        }
    }

    private func publish(_ state: CampaignControlState) {
        continuation.yield(state)
        onChange?(state)
    }
}
