/// Observes what the mock answered, like Pushy's `PushNotificationHandler` listeners: tests count
/// and inspect deliveries, ``MockPushRecorder`` writes them to a file.
///
/// Called on the connection's event loop right after the answer is handed to HTTP/2, once per
/// request, from several event loops at once: keep it quick and thread-safe. Not called in the
/// no-validation fast path (``MockAPNsServer/Validation/none``), which parses nothing to report.
public protocol MockAPNsListener: Sendable {
    func pushAccepted(_ push: MockAcceptedPush)
    func pushRejected(_ push: MockRejectedPush)
    /// A broadcast to a Live Activity channel answered 200.
    func broadcastAccepted(_ broadcast: MockAcceptedBroadcast)
    /// Writes out anything buffered; the server calls it every second and when it shuts down.
    func flush()
}

extension MockAPNsListener {
    public func pushAccepted(_ push: MockAcceptedPush) {}
    public func pushRejected(_ push: MockRejectedPush) {}
    public func broadcastAccepted(_ broadcast: MockAcceptedBroadcast) {}
    public func flush() {}
}
