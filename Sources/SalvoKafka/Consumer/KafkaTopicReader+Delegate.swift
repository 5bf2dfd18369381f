import SalvoPrimitives
import Synchronization

extension KafkaTopicReader {
    /// The reader's loop delegate: hands records to the handler in order and tells it once when
    /// every partition has reached its end. Stopping is `RDKafkaPlainDelegate`'s.
    final class Delegate: RDKafkaLoopDelegate {
        private struct Progress {
            /// Partitions that have not reached their end yet; nil before `start` assigned them.
            var pending: Set<KafkaTopicPartition>?
            var caughtUp = false
        }

        /// Entries taken per turn of the loop; logs and errors are served between turns.
        static let batchLimit = 256

        let plain = RDKafkaPlainDelegate()
        private let handler: @Sendable (KafkaTopicReaderEvent) -> Void
        private let progress = Mutex(Progress())

        init(handler: @escaping @Sendable (KafkaTopicReaderEvent) -> Void) {
            self.handler = handler
        }

        /// Called on the loop thread before the partitions are assigned. False when the reader
        /// was started already.
        func expect(_ partitions: [KafkaTopicPartition]) -> Bool {
            let (first, empty) = progress.withLock { progress in
                guard progress.pending == nil, !progress.caughtUp else { return (false, false) }
                progress.pending = Set(partitions)
                return (true, partitions.isEmpty)
            }
            if empty { reachedEnd(of: nil) }
            return first
        }

        /// Once the partitions are assigned, each turn takes what their queue holds (waiting up to
        /// the plain delegate's poll time) and then lets the loop serve one pending log or error
        /// without waiting. `RDKafkaLoop.wake` interrupts the wait on either queue.
        func loopWillPoll(_ client: RDKafkaClient) -> RDKafkaLoop.Step {
            let step = plain.loopWillPoll(client)
            guard case .poll(let timeout) = step, progress.withLock({ $0.pending != nil }) else { return step }
            for entry in client.takePartitionEntries(limit: Self.batchLimit, timeoutMilliseconds: timeout) {
                switch entry {
                case .message(let message): handler(.message(message))
                case .endOfPartition(let partition): reachedEnd(of: partition)
                case .error(let error): handler(.error(error))
                }
            }
            return .poll(timeoutMilliseconds: 0)
        }

        func loop(_ client: RDKafkaClient, received event: RDKafkaEvent) {
            switch event {
            case .message(let message):
                handler(.message(message))
            case .consumerError(let error, _):
                handler(.error(error))
            case .error(let error) where error.isFatal:
                handler(.error(error))
            case .error, .deliveryReports, .rebalance, .statistics, .handled:
                break
            }
        }

        func loopWillStop(_ client: RDKafkaClient) {
            plain.loopWillStop(client)
        }

        func loopDidStop() {
            plain.loopDidStop()
        }

        private func reachedEnd(of partition: KafkaTopicPartition?) {
            let first = progress.withLock { progress -> Bool in
                guard !progress.caughtUp, var pending = progress.pending else { return false }
                if let partition { pending.remove(partition) }
                progress.pending = pending
                guard pending.isEmpty else { return false }
                progress.caughtUp = true
                return true
            }
            if first { handler(.caughtUp) }
        }
    }
}
