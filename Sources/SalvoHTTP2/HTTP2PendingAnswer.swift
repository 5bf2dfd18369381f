/// One answer waiting for `deliverPending`, in the order the streams ended.
///
/// Why a second queue beside `pendingCompletions`: a completion holds a responder and an
/// `HTTP2Response` or an error, and each step it took through the ring buffer (append, pop,
/// destroy) went through outlined copies of that many-case enum; with the `Result` and the
/// `APNsResponse` built from it, ~900 instructions per answer (measured with the gate).
/// The common answer (a status for a tagged request, nothing else) is two plain words stored
/// here whole; anything else waits in `pendingCompletions` and is marked here, so the order of
/// answers is kept.
struct HTTP2PendingAnswer {
    /// The request's tag, for a ``bare(tag:status:)`` answer.
    let tag: UInt64
    /// The response's status, or -1 for "the next of `pendingCompletions`".
    let status: Int

    static func bare(tag: UInt64, status: Int) -> HTTP2PendingAnswer {
        HTTP2PendingAnswer(tag: tag, status: status)
    }

    static var completion: HTTP2PendingAnswer { HTTP2PendingAnswer(tag: 0, status: -1) }

    var isBare: Bool { status >= 0 }
}
