import Crypto
import NIOCore
import SalvoAPNs
import Synchronization

/// Writes one NDJSON line per accepted notification and broadcast (`--record FILE`), so a test or an SRE can
/// prove that nothing was lost or duplicated: every line carries the `apns-id`, the token and a
/// SHA-256 of the payload. The line format is documented in `docs/mock-apns.md`:
///
/// `{"apns_id":"…","token":"…","topic":"…","push_type":"alert","priority":10,"expiration":null,
/// "collapse_id":null,"payload_sha256":"…","payload_bytes":200,"received_at_ms":…,"connection":1}`
///
/// Lines are formatted on the calling event loop and appended to one buffer under a lock; the
/// buffer goes to the file with one `write` when it passes 64 KiB and on ``flush()`` (the server
/// flushes every second and at shutdown), so recording costs about one SHA-256 per notification.
public final class MockPushRecorder: MockAPNsListener {
    private struct State: ~Copyable {
        var file: RecordFile
        var buffer: [UInt8] = []
        /// Set when a write failed; later lines are dropped rather than blocking the server.
        var failure: String?
    }

    public let path: String
    private let state: Mutex<State>
    private static let flushThreshold = 64 * 1024

    /// Creates (or truncates) the file.
    public init(path: String) throws(MockAPNsError) {
        self.path = path
        self.state = Mutex(State(file: try RecordFile(path: path)))
    }

    deinit {
        self.close()
    }

    public func pushAccepted(_ push: MockAcceptedPush) {
        let line = Self.line(for: push)
        self.state.withLock { state in
            state.buffer.append(contentsOf: line)
            if state.buffer.count >= Self.flushThreshold { Self.writeOut(&state) }
        }
    }

    public func broadcastAccepted(_ broadcast: MockAcceptedBroadcast) {
        let line = Self.line(for: broadcast)
        self.state.withLock { state in
            state.buffer.append(contentsOf: line)
            if state.buffer.count >= Self.flushThreshold { Self.writeOut(&state) }
        }
    }

    public func flush() {
        self.state.withLock { Self.writeOut(&$0) }
    }

    /// Flushes and closes the file; later notifications are not recorded.
    public func close() {
        self.state.withLock { state in
            Self.writeOut(&state)
            state.file.close()
        }
    }

    /// The first write error, if any (the file is then incomplete).
    public var writeFailure: String? { self.state.withLock { $0.failure } }

    private static func writeOut(_ state: inout State) {
        defer { state.buffer.removeAll(keepingCapacity: true) }
        guard state.file.isOpen, state.failure == nil, !state.buffer.isEmpty else { return }
        state.failure = state.file.write(state.buffer)
    }

    static func line(for push: MockAcceptedPush) -> [UInt8] {
        let request = push.request
        var line = JSONLine()
        line.field("apns_id", string: push.apnsID.headerValue)
        request.token.withHexBytes { line.field("token", string: $0) }
        line.field("topic", string: request.topic.headerValue)
        line.field("push_type", string: request.pushType.headerValue)
        line.field("priority", integer: Int64(request.priority.rawValue))
        line.field("expiration", integer: request.expiration?.secondsSince1970)
        line.field("collapse_id", string: request.collapseID?.headerValue)
        let digest = push.payload.withUnsafeReadableBytes { SHA256.hash(data: $0) }
        line.field("payload_sha256", hex: digest)
        line.field("payload_bytes", integer: Int64(push.payload.readableBytes))
        line.field("received_at_ms", integer: push.receivedAtMilliseconds)
        line.field("connection", integer: Int64(push.connectionID))
        return line.finish()
    }

    /// A broadcast's line: `channel_id` and `request_id` where a push has `token` and `apns_id`.
    static func line(for broadcast: MockAcceptedBroadcast) -> [UInt8] {
        var line = JSONLine()
        line.field("request_id", string: broadcast.requestID.utf8)
        line.field("channel_id", string: broadcast.channelID.utf8)
        line.field("topic", string: broadcast.bundleID.utf8)
        line.field("push_type", string: APNsBroadcastRequest.pushType.utf8)
        line.field("priority", integer: Int64(broadcast.priority))
        line.field("expiration", integer: broadcast.expiration)
        let digest = broadcast.payload.withUnsafeReadableBytes { SHA256.hash(data: $0) }
        line.field("payload_sha256", hex: digest)
        line.field("payload_bytes", integer: Int64(broadcast.payload.readableBytes))
        line.field("received_at_ms", integer: broadcast.receivedAtMilliseconds)
        line.field("connection", integer: Int64(broadcast.connectionID))
        return line.finish()
    }
}
