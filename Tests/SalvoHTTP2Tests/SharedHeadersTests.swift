import NIOCore
import NIOEmbedded
import SalvoHTTP2
import Testing

/// Requests carrying an `HTTP2SharedHeaders` block, which nghttp2 reads in place, between two real
/// nghttp2 sessions in memory.
@Suite struct SharedHeadersTests {
    private static func shared(_ fields: [(String, String)]) -> HTTP2SharedHeaders {
        HTTP2SharedHeaders(
            HTTP2Headers([(":method", "POST"), (":scheme", "https"), (":authority", "localhost")] + fields))
    }

    private static func request(path: String, own: [(String, String)] = [], shared: HTTP2SharedHeaders) -> HTTP2Request
    {
        HTTP2Request(headers: HTTP2Headers([(":path", path)] + own), shared: shared, body: ByteBuffer(string: path))
    }

    @Test("the block goes out after the request's pseudo-header fields and before its regular ones")
    func fieldOrder() throws {
        let connection = try InMemoryConnection()
        defer { connection.close() }
        let block = Self.shared([("apns-topic", "com.example.app"), ("X-Mixed-Case", "kept")])
        let request = Self.request(path: "/3/device/aa", own: [("apns-id", "id-1")], shared: block)
        #expect(
            request.headerBlock.map(\.name) == [
                ":path", ":method", ":scheme", ":authority", "apns-topic", "X-Mixed-Case", "apns-id",
            ])
        let promise = connection.loop.makePromise(of: HTTP2Response.self)
        connection.clientHandler.submit(request, promise: promise)
        connection.clientHandler.flush()
        try connection.interact()

        #expect(promise.futureResult.settled?.response?.status == 200)
        let received = try #require(connection.responder.received.first).request
        // nghttp2 lower-cases names it copies; a block's upper-case name is copied, not referenced.
        #expect(
            received.headers.map(\.name) == [
                ":path", ":method", ":scheme", ":authority", "apns-topic", "x-mixed-case", "apns-id",
            ])
        #expect(received.path == "/3/device/aa")
        #expect(received.headers.first(name: "apns-topic") == "com.example.app")
        #expect(received.headers.first(name: "x-mixed-case") == "kept")
        #expect(received.headers.first(name: "apns-id") == "id-1")
    }

    /// Each block is dropped by its caller right after the submit and is the same size as the
    /// next, so memory freed too early would be reused and the server would see another block's
    /// value. 100 blocks before one flush also pass the limit of retired blocks, past which
    /// nghttp2 copies the fields.
    @Test("blocks their callers dropped stay readable until nghttp2 encoded their requests")
    func droppedBlocksStayReadable() throws {
        let connection = try InMemoryConnection()
        defer { connection.close() }
        var futures: [EventLoopFuture<HTTP2Response>] = []
        for index in 0..<100 {
            let promise = connection.loop.makePromise(of: HTTP2Response.self)
            let value = "value-" + String(1000 + index)
            connection.clientHandler.submit(
                Self.request(path: "/r/\(index)", shared: Self.shared([("x-block", value)])), promise: promise)
            futures.append(promise.futureResult)
        }
        connection.clientHandler.flush()
        try connection.interact()

        #expect(futures.allSatisfy { $0.settled?.response?.status == 200 })
        let received = connection.responder.received.map(\.request)
        #expect(received.count == 100)
        for request in received {
            let index = try #require(request.path.flatMap { Int($0.dropFirst("/r/".count)) })
            #expect(request.headers.first(name: "x-block") == "value-" + String(1000 + index))
            #expect(String(buffer: request.body) == "/r/\(index)")
        }
    }

    @Test("requests queued past the stream limit keep their dropped blocks until they go out")
    func queuedRequestsKeepTheirBlocks() throws {
        let connection = try InMemoryConnection(policy: .hold)
        defer { connection.close() }
        try connection.serverHandler.setMaxConcurrentStreams(2)
        try connection.interact()
        var futures: [EventLoopFuture<HTTP2Response>] = []
        for index in 0..<10 {
            let promise = connection.loop.makePromise(of: HTTP2Response.self)
            connection.clientHandler.submit(
                Self.request(path: "/q/\(index)", shared: Self.shared([("x-block", "queued-\(index)")])),
                promise: promise)
            futures.append(promise.futureResult)
        }
        connection.clientHandler.flush()
        try connection.interact()
        #expect(connection.responder.received.count == 2)

        try connection.answerHeldOneByOne(maxRounds: 20)
        #expect(futures.allSatisfy { $0.settled?.response?.status == 200 })
        for request in connection.responder.received.map(\.request) {
            let index = try #require(request.path.flatMap { Int($0.dropFirst("/q/".count)) })
            #expect(request.headers.first(name: "x-block") == "queued-\(index)")
        }
    }
}
