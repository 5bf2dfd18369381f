import NIOCore
import NIOEmbedded
import SalvoHTTP2
import Testing

/// Client handler ⇄ server handler through two EmbeddedChannels: requests, responses, bodies.
@Suite struct InMemoryRequestTests {
    @Test func requestAndResponseCarryHeadersAndBodies() throws {
        let connection = try InMemoryConnection()
        defer { connection.close() }
        var headers = HTTP2Headers()
        headers.add(name: "apns-topic", value: "com.example.app")
        headers.add(name: "x-dup", value: "one")
        headers.add(name: "x-dup", value: "two")
        let future = connection.send(path: "/3/device/abc", body: #"{"aps":{}}"#, headers: headers)
        try connection.interact()

        let response = try #require(future.settled?.response)
        #expect(response.status == 200)
        #expect(response.headers.first(name: "apns-id") == "id-1")
        #expect(response.headers.first(name: "x-path") == "/3/device/abc")
        #expect(response.body.map { String(buffer: $0) } == #"{"aps":{}}"#)
        #expect(!response.headers.contains(name: ":status"))

        let received = try #require(connection.responder.received.first)
        #expect(received.streamID == 1)
        #expect(received.request.method == "POST")
        #expect(received.request.scheme == "https")
        #expect(received.request.authority == "localhost")
        #expect(received.request.path == "/3/device/abc")
        #expect(received.request.headers.values(name: "x-dup") == ["one", "two"])
        #expect(received.request.headers.count(name: "x-dup") == 2)
        #expect(Array(received.request.headers.map(\.name).prefix(4)) == [":method", ":scheme", ":authority", ":path"])
        #expect(String(buffer: received.request.body) == #"{"aps":{}}"#)
    }

    @Test func emptyBodiesSendNoDataFrames() throws {
        let connection = try InMemoryConnection()
        defer { connection.close() }
        let future = connection.send(path: "/empty")
        try connection.interact()
        let response = try #require(future.settled?.response)
        #expect(response.status == 200)
        #expect(response.body == nil)
        #expect(connection.clientToServer.frames(ofType: FrameLog.data).isEmpty)
        #expect(connection.serverToClient.frames(ofType: FrameLog.data).isEmpty)
    }

    @Test func largeBodiesCrossFlowControlWindows() throws {
        var small = HTTP2SessionHandler.Configuration()
        small.initialStreamWindowSize = 16_384
        small.connectionWindowSize = 65_535
        let connection = try InMemoryConnection(client: small, server: small)
        defer { connection.close() }
        let body = String(repeating: "x", count: 300_000)
        let future = connection.send(path: "/big", body: body)
        try connection.interact()
        let response = try #require(future.settled?.response)
        #expect(response.body?.readableBytes == 300_000)
        #expect(connection.clientToServer.frames(ofType: FrameLog.windowUpdate).isEmpty == false)
    }

    @Test func manyConcurrentStreamsAllComplete() throws {
        let connection = try InMemoryConnection()
        defer { connection.close() }
        let futures = (0..<500).map { connection.send(path: "/r/\($0)", body: "body-\($0)") }
        try connection.interact()
        for (index, future) in futures.enumerated() {
            let response = try #require(future.settled?.response)
            #expect(response.headers.first(name: "x-path") == "/r/\(index)")
            #expect(response.body.map { String(buffer: $0) } == "body-\(index)")
        }
        #expect(connection.serverHandler.totalStreamCount == 500)
        #expect(connection.serverHandler.openStreamCount == 0)
        #expect(connection.clientHandler.openStreamCount == 0)
        // The client assumed 100 streams until the server's SETTINGS said 1000.
        #expect(connection.responder.maxOpenStreamsSeen <= 1000)
    }

    @Test func delayedResponsesMayComeInAnyOrder() throws {
        let connection = try InMemoryConnection(policy: .hold)
        defer { connection.close() }
        let futures = (0..<3).map { connection.send(path: "/d/\($0)") }
        try connection.interact()
        #expect(connection.serverHandler.openStreamCount == 3)
        #expect(futures.allSatisfy { $0.settled == nil })

        connection.loop.advanceTime(by: .milliseconds(250))
        for held in connection.responder.held.reversed() {
            try connection.serverHandler.respond(
                streamID: held.streamID, HTTP2Response(status: 202, body: ByteBuffer(string: held.request.path ?? "")))
        }
        try connection.interact()
        for (index, future) in futures.enumerated() {
            let response = try #require(future.settled?.response)
            #expect(response.status == 202)
            #expect(response.body.map { String(buffer: $0) } == "/d/\(index)")
        }
        #expect(connection.serverHandler.openStreamCount == 0)
    }

    @Test func respondingTwiceOrToUnknownStreamsFails() throws {
        let connection = try InMemoryConnection(policy: .hold)
        defer { connection.close() }
        let future = connection.send(path: "/once")
        try connection.interact()
        let streamID = try #require(connection.responder.held.first?.streamID)
        try connection.serverHandler.respond(streamID: streamID, HTTP2Response(status: 200))
        try connection.interact()
        #expect(future.settled?.response?.status == 200)
        #expect(throws: HTTP2Error.self) {
            try connection.serverHandler.respond(streamID: streamID, HTTP2Response(status: 200))
        }
        #expect(throws: HTTP2Error.self) {
            try connection.serverHandler.respond(streamID: 99, HTTP2Response(status: 200))
        }
    }

    @Test func modeMismatchesAreRefused() throws {
        let connection = try InMemoryConnection()
        defer { connection.close() }
        let promise = connection.loop.makePromise(of: HTTP2Response.self)
        connection.serverHandler.submit(HTTP2Request(authority: "a", path: "/"), promise: promise)
        #expect(promise.futureResult.settled?.http2Error?.code == .invalidOperation)
        #expect(throws: HTTP2Error.self) {
            try connection.clientHandler.respond(streamID: 1, HTTP2Response(status: 200))
        }
    }

    @Test func pipelineWritesSubmitRequests() throws {
        let connection = try InMemoryConnection()
        defer { connection.close() }
        let promise = connection.loop.makePromise(of: HTTP2Response.self)
        let request = HTTP2Request(authority: "localhost", path: "/piped", body: ByteBuffer(string: "p"))
        try connection.client.writeAndFlush(HTTP2Command.request(request, deadline: nil, response: promise)).wait()
        try connection.interact()
        #expect(promise.futureResult.settled?.response?.headers.first(name: "x-path") == "/piped")
    }

    @Test func taggedRequestsAnswerTheDelegateOncePerTag() throws {
        final class Recorder: HTTP2ResponseDelegate {
            var results: [UInt64: Result<HTTP2Response, HTTP2Error>] = [:]
            var calls = 0
            func http2Response(_ result: Result<HTTP2Response, HTTP2Error>, tag: UInt64) {
                self.calls += 1
                self.results[tag] = result
            }
        }
        let connection = try InMemoryConnection(policy: .hold)
        defer { connection.close() }
        let recorder = Recorder()
        try connection.submitTagged(10..<13, pathPrefix: "/t", delegate: recorder)
        #expect(recorder.calls == 0)
        let held = connection.responder.held
        try connection.serverHandler.respond(streamID: held[0].streamID, HTTP2Response(status: 200))
        try connection.serverHandler.resetStream(streamID: held[1].streamID, errorCode: .refusedStream)
        try connection.interact()
        try connection.client.close().wait()
        #expect(recorder.calls == 3)
        #expect(recorder.results[10].flatMap { try? $0.get().status } == 200)
        #expect(recorder.results[11]?.http2Error?.code == HTTP2Error.Code.notSent)
        #expect(recorder.results[12]?.http2Error?.code == HTTP2Error.Code.connectionLost)
    }

    @Test func statusOnlyAnswersComeAsBareAnswersInOrderWithTheOthers() throws {
        final class Recorder: HTTP2ResponseDelegate {
            var answers: [String] = []
            func http2Response(_ result: Result<HTTP2Response, HTTP2Error>, tag: UInt64) {
                let response = try? result.get()
                let header = response?.headers.first(name: "x-kept") ?? "-"
                self.answers.append(
                    "\(tag) full \(response?.status ?? 0) \(header) \(response?.body?.readableBytes ?? 0)")
            }
            func http2Response(status: Int, tag: UInt64) {
                self.answers.append("\(tag) bare \(status)")
            }
        }
        let connection = try InMemoryConnection(policy: .hold)
        defer { connection.close() }
        let recorder = Recorder()
        try connection.submitTagged(20..<25, pathPrefix: "/b", delegate: recorder)
        let held = connection.responder.held
        try #require(held.count == 5)
        var kept = HTTP2Headers()
        kept.add(name: "x-kept", value: "1")
        // All five end in one read and are delivered in the order the streams ended. The server's
        // nghttp2 sends the HEADERS frames it has queued before the DATA frame of 21, so 21 ends
        // last; 23, a full answer, still comes between bare ones.
        try connection.serverHandler.respond(streamID: held[0].streamID, HTTP2Response(status: 200))
        try connection.serverHandler.respond(
            streamID: held[1].streamID, HTTP2Response(status: 400, body: ByteBuffer(string: "why")))
        try connection.serverHandler.respond(streamID: held[2].streamID, HTTP2Response(status: 410))
        try connection.serverHandler.respond(streamID: held[3].streamID, HTTP2Response(status: 200, headers: kept))
        try connection.serverHandler.respond(streamID: held[4].streamID, HTTP2Response(status: 200))
        try connection.interact()
        #expect(
            recorder.answers == [
                "20 bare 200", "22 bare 410", "23 full 200 1 0", "24 bare 200", "21 full 400 - 3",
            ])
    }

    @Test func oversizedBodiesAreRefusedOnBothSides() throws {
        var server = HTTP2SessionHandler.Configuration()
        server.maxBodySize = 1_000
        var client = HTTP2SessionHandler.Configuration()
        client.maxBodySize = 1_500
        let connection = try InMemoryConnection(client: client, server: server)
        defer { connection.close() }

        let tooLargeRequest = connection.send(path: "/big", body: String(repeating: "r", count: 1_001))
        let fits = connection.send(path: "/ok", body: String(repeating: "o", count: 1_000))
        try connection.interact()
        #expect(tooLargeRequest.settled?.http2Error?.code == .streamReset)
        #expect(tooLargeRequest.settled?.http2Error?.http2ErrorCode == .cancel)
        #expect(fits.settled?.response?.body?.readableBytes == 1_000)
        #expect(connection.responder.received.map { $0.request.path } == ["/ok"])

        // The echo of a body the server accepts but the client does not.
        var big = HTTP2SessionHandler.Configuration()
        big.maxBodySize = 4_000
        let second = try InMemoryConnection(client: client, server: big)
        defer { second.close() }
        let tooLargeResponse = second.send(path: "/echo", body: String(repeating: "e", count: 3_000))
        try second.interact()
        #expect(tooLargeResponse.settled?.http2Error?.code == .invalidOperation)
        #expect(second.clientToServer.resets.isEmpty)
    }
}
