import NIOCore
import NIOEmbedded
import SalvoHTTP2
import Testing

/// Stream credit, GOAWAY, resets, timeouts, connection loss, backpressure and PING between the
/// client and server handlers in memory.
@Suite struct InMemoryFlowTests {
    @Test func clientFollowsALoweredMaxConcurrentStreams() throws {
        let connection = try InMemoryConnection(policy: .hold)
        defer { connection.close() }
        let first = (0..<10).map { connection.send(path: "/a/\($0)") }
        try connection.interact()
        #expect(connection.clientEvents.remoteSettings.first?.maxConcurrentStreams == 1000)
        #expect(connection.serverHandler.openStreamCount == 10)

        try connection.serverHandler.setMaxConcurrentStreams(2)
        try connection.interact()
        #expect(connection.clientEvents.remoteSettings.last?.maxConcurrentStreams == 2)
        #expect(connection.clientHandler.streamCredit == HTTP2StreamCredit(maxConcurrentStreams: 2, openStreams: 10))
        #expect(connection.clientHandler.streamCredit.available == 0)
        #expect(connection.serverEvents.events.contains(.localSettingsAcknowledged))

        // Twenty more while over the limit: nghttp2 holds them until streams free up.
        let second = (0..<20).map { connection.send(path: "/b/\($0)") }
        try connection.interact()
        #expect(connection.responder.received.count == 10)

        try connection.answerHeldOneByOne(maxRounds: 100) {
            // Once the first ten drained, the server never sees more than two open.
            if connection.responder.received.count > 10 {
                #expect(connection.serverHandler.openStreamCount <= 2)
            }
        }
        #expect(connection.responder.received.count == 30)
        #expect((first + second).allSatisfy { $0.settled?.response?.status == 200 })
        #expect(connection.clientHandler.streamCredit.available == 2)
        #expect(connection.clientEvents.creditAvailable.first?.maxConcurrentStreams == 2)

        try connection.serverHandler.setMaxConcurrentStreams(50)
        try connection.interact()
        #expect(connection.clientHandler.streamCredit.maxConcurrentStreams == 50)
    }

    @Test func goAwayFailsHigherStreamsAsNotSentAndLetsLowerOnesFinish() throws {
        let connection = try InMemoryConnection(policy: .hold)
        defer { connection.close() }
        let futures = (0..<5).map { connection.send(path: "/g/\($0)") }  // streams 1, 3, 5, 7, 9
        try connection.interact()
        #expect(connection.responder.held.count == 5)

        try connection.serverHandler.goAway(
            errorCode: .noError, debugData: ByteBuffer(string: "maintenance"), lastStreamID: 5)
        try connection.interact()
        let goAway = try #require(connection.clientEvents.goAways.first)
        #expect(goAway.lastStreamID == 5)
        #expect(goAway.errorCode == .noError)
        #expect(String(buffer: goAway.debugData) == "maintenance")
        for future in futures[3...] {
            let error = try #require(future.settled?.http2Error)
            #expect(error.code == .notSent)
            #expect(error.isSafeToReplay)
        }
        #expect(futures[..<3].allSatisfy { $0.settled == nil })

        let refused = connection.send(path: "/after-goaway")
        #expect(refused.settled?.http2Error?.code == .notSent)

        for held in connection.responder.held.prefix(3) {
            try connection.serverHandler.respond(streamID: held.streamID, HTTP2Response(status: 200))
        }
        try connection.interact()
        #expect(futures[..<3].allSatisfy { $0.settled?.response?.status == 200 })
        // Nothing left to do after GOAWAY: the client closes the connection.
        #expect(!connection.client.isActive)
    }

    @Test func gracefulGoAwayUsesTheLastProcessedStream() throws {
        let connection = try InMemoryConnection(policy: .hold)
        defer { connection.close() }
        let futures = (0..<2).map { connection.send(path: "/h/\($0)") }
        try connection.interact()
        try connection.serverHandler.goAway()
        try connection.interact()
        #expect(connection.clientEvents.goAways.first?.lastStreamID == 3)
        for held in connection.responder.held {
            try connection.serverHandler.respond(streamID: held.streamID, HTTP2Response(status: 200))
        }
        try connection.interact()
        #expect(futures.allSatisfy { $0.settled?.response?.status == 200 })
        #expect(!connection.server.isActive || !connection.client.isActive)
    }

    @Test func refusedStreamIsNotSentAndOtherResetsCarryTheirCode() throws {
        let connection = try InMemoryConnection(policy: .hold)
        defer { connection.close() }
        let refused = connection.send(path: "/refuse")
        let reset = connection.send(path: "/reset")
        try connection.interact()
        try connection.serverHandler.resetStream(streamID: 1, errorCode: .refusedStream)
        try connection.serverHandler.resetStream(streamID: 3, errorCode: .internalError)
        try connection.interact()

        let refusedError = try #require(refused.settled?.http2Error)
        #expect(refusedError.code == .notSent)
        #expect(refusedError.http2ErrorCode == .refusedStream)
        let resetError = try #require(reset.settled?.http2Error)
        #expect(resetError.code == .streamReset)
        #expect(resetError.http2ErrorCode == .internalError)
        #expect(!resetError.isSafeToReplay)
        // The client never answers a server's reset with one of its own.
        #expect(connection.clientToServer.resets.isEmpty)
        #expect(connection.serverHandler.openStreamCount == 0)
    }

    @Test func timeoutResetsOnlyStreamsTheServerHasNotEnded() throws {
        let connection = try InMemoryConnection(policy: .hold)
        defer { connection.close() }
        let deadline = connection.loop.now + .seconds(1)
        let slow = connection.send(path: "/slow", deadline: deadline)
        let answered = connection.send(path: "/answered", deadline: deadline)
        try connection.interact()
        try connection.serverHandler.respond(streamID: 3, HTTP2Response(status: 200))
        try connection.interact()
        #expect(answered.settled?.response?.status == 200)

        connection.loop.advanceTime(by: .milliseconds(999))
        #expect(slow.settled == nil)
        connection.loop.advanceTime(by: .milliseconds(1))
        let error = try #require(slow.settled?.http2Error)
        #expect(error.code == .timeout)
        try connection.interact()
        #expect(connection.clientToServer.resets.map(\.streamID) == [1])
        #expect(connection.clientToServer.resets.first?.errorCode == HTTP2ErrorCode.cancel.rawValue)
        #expect(connection.serverHandler.openStreamCount == 0)
        #expect(connection.clientHandler.openStreamCount == 0)

        // A late response for the reset stream is dropped by the server, not sent twice.
        #expect(throws: HTTP2Error.self) {
            try connection.serverHandler.respond(streamID: 1, HTTP2Response(status: 200))
        }
    }

    @Test func timeoutOfAQueuedRequestDropsItUnsent() throws {
        var server = HTTP2SessionHandler.Configuration()
        server.maxConcurrentStreams = 1
        let connection = try InMemoryConnection(server: server, policy: .hold)
        defer { connection.close() }
        _ = connection.send(path: "/first")
        try connection.interact()
        let queued = connection.send(path: "/queued", deadline: connection.loop.now + .seconds(1))
        try connection.interact()
        #expect(connection.responder.received.count == 1)
        connection.loop.advanceTime(by: .seconds(1))
        #expect(queued.settled?.http2Error?.code == .timeout)
        try connection.interact()
        // Never on the wire: no HEADERS and no RST_STREAM for stream 3.
        #expect(connection.clientToServer.frames(ofType: FrameLog.headers).map(\.streamID) == [1])
        #expect(connection.clientToServer.resets.isEmpty)
        #expect(connection.clientHandler.streamCredit == HTTP2StreamCredit(maxConcurrentStreams: 1, openStreams: 1))

        try connection.serverHandler.respond(streamID: 1, HTTP2Response(status: 200))
        try connection.interact()
        #expect(connection.clientToServer.frames(ofType: FrameLog.headers).map(\.streamID) == [1])
        #expect(connection.responder.received.count == 1)
        #expect(connection.clientHandler.openStreamCount == 0)
    }

    @Test func connectionCloseFailsEveryInFlightRequest() throws {
        var server = HTTP2SessionHandler.Configuration()
        server.maxConcurrentStreams = 1
        let connection = try InMemoryConnection(server: server, policy: .hold)
        defer { connection.close() }
        _ = connection.send(path: "/warmup")  // learn the server's limit of one
        try connection.interact()
        try connection.serverHandler.respond(streamID: 1, HTTP2Response(status: 200))
        try connection.interact()

        let sent = connection.send(path: "/sent")
        let queued = connection.send(path: "/queued")
        try connection.interact()
        #expect(connection.responder.held.count == 2)
        try connection.client.close().wait()

        #expect(sent.settled?.http2Error?.code == .connectionLost)
        #expect(sent.settled?.http2Error?.isRetriable == true)
        #expect(queued.settled?.http2Error?.code == .notSent)
        #expect(connection.send(path: "/late").settled?.http2Error?.code == .notSent)
    }

    @Test func peerProtocolErrorSendsGoAwayClosesAndFailsRequests() throws {
        let connection = try InMemoryConnection(policy: .hold)
        defer { connection.close() }
        let pending = connection.send(path: "/p")
        try connection.interact()
        // CONTINUATION without HEADERS: a connection error in nghttp2's eyes.
        _ = try? connection.client.writeInbound(FrameLog.encode(type: 0x9, flags: 0, streamID: 1, payload: [0, 0]))
        var goAway: FrameLog.Frame?
        while let bytes = try connection.client.readOutbound(as: ByteBuffer.self) {
            var log = FrameLog(expectsPreface: false)
            log.append(bytes)
            goAway = log.frames(ofType: FrameLog.goAway).first ?? goAway
        }
        let payload = try #require(goAway?.payload)
        #expect(
            payload.getInteger(at: payload.readerIndex + 4, as: UInt32.self) == HTTP2ErrorCode.protocolError.rawValue)
        #expect(pending.settled?.http2Error?.code == .connectionLost)
        #expect(!connection.client.isActive)
    }

    @Test func writesWaitForWritability() throws {
        let connection = try InMemoryConnection()
        defer { connection.close() }
        try connection.interact()
        connection.client.isWritable = false
        connection.client.pipeline.fireChannelWritabilityChanged()
        let future = connection.send(path: "/w")
        #expect(try connection.client.readOutbound(as: ByteBuffer.self) == nil)

        connection.client.isWritable = true
        connection.client.pipeline.fireChannelWritabilityChanged()
        let written = try #require(try connection.client.readOutbound(as: ByteBuffer.self))
        try connection.server.writeInbound(written)
        try connection.interact()
        #expect(future.settled?.response?.status == 200)
    }

    @Test func writingStopsWhenTheChannelBecomesUnwritable() throws {
        var client = HTTP2SessionHandler.Configuration()
        client.maxWriteSize = 16_384
        let connection = try InMemoryConnection(client: client)
        defer { connection.close() }
        try connection.interact()
        // A handler that turns the channel unwritable after the first buffer it sees.
        final class Throttle: ChannelOutboundHandler, RemovableChannelHandler {
            typealias OutboundIn = ByteBuffer
            var writes = 0
            func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
                self.writes += 1
                (context.channel as? EmbeddedChannel)?.isWritable = false
                context.write(data, promise: promise)
            }
        }
        let throttle = Throttle()
        try connection.client.pipeline.syncOperations.addHandler(throttle, position: .first)
        let future = connection.send(path: "/big", body: String(repeating: "z", count: 60_000))
        #expect(throttle.writes == 1)
        connection.client.isWritable = true
        connection.client.pipeline.fireChannelWritabilityChanged()
        #expect(throttle.writes == 2)
        for _ in 0..<10 where connection.client.isWritable == false {
            connection.client.isWritable = true
            connection.client.pipeline.fireChannelWritabilityChanged()
        }
        try connection.client.pipeline.syncOperations.removeHandler(throttle).wait()
        try connection.interact()
        #expect(future.settled?.response?.body?.readableBytes == 60_000)
    }

    @Test func pingAckReportsRoundTripTime() throws {
        let connection = try InMemoryConnection()
        defer { connection.close() }
        try connection.interact()
        try connection.clientHandler.ping(data: 42)
        connection.loop.advanceTime(by: .milliseconds(7))
        try connection.interact()
        #expect(connection.clientEvents.pingAcks == [HTTP2PingAck(data: 42, roundTripTime: .milliseconds(7))])
        #expect(connection.clientToServer.frames(ofType: FrameLog.ping).count == 1)
        // The server's nghttp2 answered on its own; its application saw no ACK event.
        #expect(connection.serverEvents.pingAcks.isEmpty)
    }
}
