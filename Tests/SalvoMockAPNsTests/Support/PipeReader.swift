import Foundation
import Synchronization

/// Drains one pipe on a dedicated thread; the text so far is readable at any time. For
/// `CommandTests`, which watches `salvo mock-apns` print its addresses and then checks how it
/// exits; a thread of its own, never Swift's cooperative pool, where a blocking read would
/// starve the other tests.
final class PipeReader: Sendable {
    let pipe = Pipe()
    private let state = Mutex<(text: [UInt8], done: Bool)>(([], false))

    func start() {
        let handle = self.pipe.fileHandleForReading
        Thread.detachNewThread {
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                self.state.withLock { $0.text.append(contentsOf: data) }
            }
            self.state.withLock { $0.done = true }
        }
    }

    var text: String { self.state.withLock { String(decoding: $0.text, as: UTF8.self) } }

    /// The whole output once the writer closed the pipe (bounded: 10 s).
    func finished() async -> String {
        for _ in 0..<1000 where !self.state.withLock({ $0.done }) {
            try? await Task.sleep(for: .milliseconds(10))
        }
        return self.text
    }
}
