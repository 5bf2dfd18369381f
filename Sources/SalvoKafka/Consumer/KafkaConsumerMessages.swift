/// The messages of a `KafkaConsumer`, as an asynchronous sequence.
///
/// `next()` returns at once while the bounded buffer holds messages and suspends only when it is
/// empty. A cancelled iterating task ends its iteration (returns `nil`).
public struct KafkaConsumerMessages: AsyncSequence, Sendable {
    public typealias Element = KafkaConsumerMessage

    private let core: KafkaConsumer.Core

    init(core: KafkaConsumer.Core) {
        self.core = core
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(core: core)
    }

    public struct Iterator: AsyncIteratorProtocol {
        private let core: KafkaConsumer.Core

        init(core: KafkaConsumer.Core) {
            self.core = core
        }

        public mutating func next() async throws -> KafkaConsumerMessage? {
            switch core.pop() {
            case .message(let message): return message
            case .finished: return nil
            case .failed(let error): throw error
            case .wait: break
            }
            let id = core.makeWaiterID()
            let core = self.core
            let result = await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    core.wait(id: id, waiter: continuation)
                }
            } onCancel: {
                core.cancel(id: id)
            }
            return try result.get()
        }

        /// The next message if the buffer holds one, without suspending; nil when it is empty
        /// (or the sequence has ended: `next()` then says so). Lets a reader take what has
        /// arrived as one batch, instead of one hand-over per message.
        public mutating func nextBuffered() throws -> KafkaConsumerMessage? {
            switch core.pop() {
            case .message(let message): return message
            case .finished, .wait: return nil
            case .failed(let error): throw error
            }
        }
    }
}
