import NIOCore

/// Who answers a client request: the caller's promise, or the handler's
/// `HTTP2ResponseDelegate` with the caller's tag.
enum HTTP2Responder {
    case promise(EventLoopPromise<HTTP2Response>)
    case tag(UInt64)

    func complete(_ result: Result<HTTP2Response, HTTP2Error>, delegate: (any HTTP2ResponseDelegate)?) {
        switch self {
        case .promise(let promise):
            switch result {
            case .success(let response): promise.succeed(response)
            case .failure(let error): promise.fail(error)
            }
        case .tag(let tag):
            delegate?.http2Response(result, tag: tag)
        }
    }
}

/// A caller's answer decided inside an nghttp2 callback and delivered after it returns.
/// A non-generic enum rather than a `(promise, Result)` tuple (hot-path rule 3,
/// docs/performance-notes.md: the tuples' buffer cost ~1,500 instructions per request).
enum HTTP2PendingCompletion {
    case success(HTTP2Responder, HTTP2Response)
    case failure(HTTP2Responder, HTTP2Error)

    /// Consuming: the response is moved out of the buffer's element into the delegate's call
    /// rather than copied (a retain and release of each of its buffers per request).
    consuming func complete(delegate: (any HTTP2ResponseDelegate)?) {
        switch consume self {
        case .success(let responder, let response): responder.complete(.success(response), delegate: delegate)
        case .failure(let responder, let error): responder.complete(.failure(error), delegate: delegate)
        }
    }
}
