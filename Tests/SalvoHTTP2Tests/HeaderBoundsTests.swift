import NIOCore
import NIOEmbedded
import SalvoHTTP2
import Testing

/// Header blocks from the network are bounded (`maxHeaderListSize`), and resets are reported by
/// who sent them: a server's PROTOCOL_ERROR refuses the request, a reset nghttp2 sends because of
/// the server's frames is the server's fault (`.invalidResponse`).
@Suite struct HeaderBoundsTests {
    /// `count` fields `x-<n>: v`: small on the wire, but 32 bytes each by RFC 9113's count.
    private static func manyFields(_ count: Int) -> HTTP2Headers {
        var headers = HTTP2Headers()
        for index in 0..<count { headers.add(name: "x-\(index)", value: "v") }
        return headers
    }

    @Test func serverResetsAnOversizedRequestAndServesTheNextOne() throws {
        let connection = try InMemoryConnection()
        defer { connection.close() }
        let flood = connection.send(path: "/flood", headers: Self.manyFields(3_000))
        try connection.interact()
        let error = try #require(flood.settled?.http2Error)
        #expect(error.code == .streamReset)
        #expect(error.http2ErrorCode == .protocolError)
        #expect(connection.serverToClient.resets.map(\.errorCode) == [HTTP2ErrorCode.protocolError.rawValue])
        #expect(connection.responder.received.isEmpty, "the oversized request is never delivered")
        #expect(connection.serverHandler.openStreamCount == 0)

        let next = connection.send(path: "/next", headers: Self.manyFields(100))
        try connection.interact()
        #expect(next.settled?.response?.status == 200)
        #expect(connection.server.isActive && connection.client.isActive)
    }

    @Test func largeFieldsWithinTheBoundAreDelivered() throws {
        let connection = try InMemoryConnection()
        defer { connection.close() }
        var headers = HTTP2Headers()
        headers.add(name: "x-large", value: String(repeating: "a", count: 50_000))
        let request = connection.send(path: "/large", headers: headers)
        try connection.interact()
        #expect(request.settled?.response?.status == 200)
        #expect(connection.responder.received.first?.request.headers.first(name: "x-large")?.count == 50_000)
    }

    @Test func theBoundIsConfigurableAndAdvertised() throws {
        var server = HTTP2SessionHandler.Configuration()
        server.maxHeaderListSize = 4_096
        let connection = try InMemoryConnection(server: server)
        defer { connection.close() }
        let small = connection.send(path: "/small", headers: Self.manyFields(10))
        let tooLarge = connection.send(path: "/large", headers: Self.manyFields(200))
        try connection.interact()
        #expect(small.settled?.response?.status == 200)
        #expect(tooLarge.settled?.http2Error?.http2ErrorCode == .protocolError)
        #expect(connection.clientHandler.remoteSettings?.maxHeaderListSize == 4_096)

        var invalid = HTTP2SessionHandler.Configuration()
        invalid.maxHeaderListSize = 100
        #expect(throws: HTTP2Error.self) { try invalid.validate() }
    }

    @Test func clientFailsAnOversizedResponseWithoutResettingIt() throws {
        let connection = try InMemoryConnection(
            policy: .respond { _ in HTTP2Response(status: 200, headers: Self.manyFields(3_000)) })
        defer { connection.close() }
        let request = connection.send(path: "/p")
        try connection.interact()
        let error = try #require(request.settled?.http2Error)
        #expect(error.code == .invalidResponse)
        #expect(connection.clientToServer.resets.isEmpty, "the server ended the stream: no reset")
        #expect(connection.client.isActive)
    }

    /// A header value HTTP/2 forbids (a trailing space) is reset by an
    /// nghttp2 server with PROTOCOL_ERROR, and the client reports the server's reset as such.
    @Test func forbiddenHeaderValueIsResetWithProtocolError() throws {
        let connection = try InMemoryConnection()
        defer { connection.close() }
        let request = connection.send(path: "/3/device/x", headers: ["apns-collapse-id": "abc "])
        try connection.interact()
        let error = try #require(request.settled?.http2Error)
        #expect(error.code == .streamReset)
        #expect(error.http2ErrorCode == .protocolError)
        #expect(connection.responder.received.isEmpty)
    }

    @Test func aResetByTheClientItselfIsAnInvalidResponse() throws {
        let loop = EmbeddedEventLoop()
        let handler = HTTP2SessionHandler(mode: .client)
        let channel = EmbeddedChannel(handler: handler, loop: loop)
        defer { _ = try? channel.finish(acceptAlreadyClosed: true) }
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 443)).wait()
        let promise = loop.makePromise(of: HTTP2Response.self)
        handler.submit(HTTP2Request(authority: "localhost", path: "/x"), promise: promise)
        handler.flush()
        while try channel.readOutbound(as: ByteBuffer.self) != nil {}

        // `:status: abc` (literal with the static table's `:status` name): nghttp2 resets the
        // stream with PROTOCOL_ERROR itself.
        var bytes = FrameLog.encode(type: FrameLog.settings, flags: 0, streamID: 0, payload: [])
        bytes.writeImmutableBuffer(
            FrameLog.encode(type: FrameLog.headers, flags: 0x5, streamID: 1, payload: [0x08, 0x03] + Array("abc".utf8)))
        try channel.writeInbound(bytes)
        let error = try #require(promise.futureResult.settled?.http2Error)
        #expect(error.code == .invalidResponse)
        #expect(error.http2ErrorCode == .protocolError)
    }

    @Test func goAwayDebugTextIsTruncatedAndPrintable() {
        var debugData = ByteBuffer(string: "line\nforged")
        #expect(HTTP2GoAway(lastStreamID: 1, errorCode: .noError, debugData: debugData).debugText() == "line?forged")
        debugData = ByteBuffer(repeating: UInt8(ascii: "x"), count: 10_000)
        let text = HTTP2GoAway(lastStreamID: 1, errorCode: .noError, debugData: debugData).debugText()
        #expect(text == String(repeating: "x", count: 256) + "… (9744 more bytes)")
    }
}
