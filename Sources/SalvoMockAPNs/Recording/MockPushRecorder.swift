import Crypto
import NIOCore
import SalvoAPNs
import SalvoPrimitives
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
        var line = JSONWriter(capacity: 320)
        line.beginObject()
        line.key("apns_id")
        line.stringBytes(push.apnsID.headerValue)
        request.token.withHexBytes {
            line.key("token")
            line.stringBytes($0)
        }
        line.key("topic")
        line.stringBytes(request.topic.headerValue)
        line.key("push_type")
        line.stringBytes(request.pushType.headerValue)
        line.key("priority")
        line.integer(request.priority.rawValue)
        line.key("expiration")
        if let expiration = request.expiration?.secondsSince1970 { line.integer(expiration) } else { line.null() }
        line.key("collapse_id")
        if let collapseID = request.collapseID?.headerValue { line.stringBytes(collapseID) } else { line.null() }
        return finish(
            &line, payload: push.payload, receivedAt: push.receivedAtMilliseconds, connection: push.connectionID)
    }

    /// A broadcast's line: `channel_id` and `request_id` where a push has `token` and `apns_id`.
    static func line(for broadcast: MockAcceptedBroadcast) -> [UInt8] {
        var line = JSONWriter(capacity: 320)
        line.beginObject()
        line.member("request_id", broadcast.requestID)
        line.member("channel_id", broadcast.channelID)
        line.member("topic", broadcast.bundleID)
        line.member("push_type", APNsBroadcastRequest.pushType)
        line.member("priority", broadcast.priority)
        line.member("expiration", broadcast.expiration)
        return finish(
            &line, payload: broadcast.payload, receivedAt: broadcast.receivedAtMilliseconds,
            connection: broadcast.connectionID)
    }

    /// The members every line ends with (the payload's digest and size, when and on which
    /// connection it arrived), then the end of the object and of the line.
    private static func finish(
        _ line: inout JSONWriter, payload: ByteBuffer, receivedAt: Int64, connection: Int
    ) -> [UInt8] {
        line.key("payload_sha256")
        line.hexString(payload.withUnsafeReadableBytes { SHA256.hash(data: $0) })
        line.member("payload_bytes", payload.readableBytes)
        line.member("received_at_ms", receivedAt)
        line.member("connection", connection)
        line.endObject()
        line.newline()
        return line.bytes
    }
}
