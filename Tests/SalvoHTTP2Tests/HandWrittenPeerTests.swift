import NIOCore
import NIOEmbedded
import SalvoHTTP2
import Testing

/// The client handler against frames written by hand, for situations an nghttp2 server does
/// not produce on its own: a response ended while the request body is still blocked by flow
/// control.
@Suite struct HandWrittenPeerTests {
    /// SETTINGS (empty), SETTINGS ACK, then HEADERS `:status: 200` (HPACK static index 8) with
    /// END_STREAM | END_HEADERS on stream 1.
    private static func serverEndsStreamOne() -> ByteBuffer {
        var bytes = FrameLog.encode(type: FrameLog.settings, flags: 0, streamID: 0, payload: [])
        bytes.writeImmutableBuffer(FrameLog.encode(type: FrameLog.settings, flags: 0x1, streamID: 0, payload: []))
        bytes.writeImmutableBuffer(FrameLog.encode(type: FrameLog.headers, flags: 0x5, streamID: 1, payload: [0x88]))
        return bytes
    }

    @Test func neverResetsAStreamTheServerAlreadyEnded() throws {
        let loop = EmbeddedEventLoop()
        let handler = HTTP2SessionHandler(mode: .client)
        let channel = EmbeddedChannel(handler: handler, loop: loop)
        defer { _ = try? channel.finish(acceptAlreadyClosed: true) }
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 443)).wait()

        // 100 KB body: only the 64 KiB default connection window can go before WINDOW_UPDATE,
        // which this peer never sends, so the client's half of stream 1 stays open.
        let promise = loop.makePromise(of: HTTP2Response.self)
        let body = ByteBuffer(repeating: 0x61, count: 100_000)
        handler.submit(
            HTTP2Request(authority: "localhost", path: "/3/device/x", body: body),
            deadline: loop.now + .seconds(1), promise: promise)
        handler.flush()
        var sent = FrameLog(expectsPreface: true)
        while let bytes = try channel.readOutbound(as: ByteBuffer.self) { sent.append(bytes) }
        let dataSent = sent.frames(ofType: FrameLog.data).reduce(0) { $0 + $1.payload.readableBytes }
        #expect(dataSent == 65_535)

        try channel.writeInbound(Self.serverEndsStreamOne())
        #expect(promise.futureResult.settled?.response?.status == 200)
        #expect(handler.openStreamCount == 1)  // our half is still sending

        loop.advanceTime(by: .seconds(5))
        while let bytes = try channel.readOutbound(as: ByteBuffer.self) { sent.append(bytes) }
        #expect(sent.resets.isEmpty)
        #expect(channel.isActive)
    }

    @Test func resetsATimedOutStreamWhoseResponseHasNotEnded() throws {
        let loop = EmbeddedEventLoop()
        let handler = HTTP2SessionHandler(mode: .client)
        let channel = EmbeddedChannel(handler: handler, loop: loop)
        defer { _ = try? channel.finish(acceptAlreadyClosed: true) }
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 443)).wait()
        let promise = loop.makePromise(of: HTTP2Response.self)
        handler.submit(
            HTTP2Request(authority: "localhost", path: "/x"), deadline: loop.now + .seconds(1), promise: promise)
        handler.flush()
        var sent = FrameLog(expectsPreface: true)
        while let bytes = try channel.readOutbound(as: ByteBuffer.self) { sent.append(bytes) }

        // Response HEADERS without END_STREAM: the server has not ended the stream.
        var bytes = FrameLog.encode(type: FrameLog.settings, flags: 0, streamID: 0, payload: [])
        bytes.writeImmutableBuffer(FrameLog.encode(type: FrameLog.headers, flags: 0x4, streamID: 1, payload: [0x88]))
        try channel.writeInbound(bytes)
        loop.advanceTime(by: .seconds(1))
        #expect(promise.futureResult.settled?.http2Error?.code == .timeout)
        while let bytes = try channel.readOutbound(as: ByteBuffer.self) { sent.append(bytes) }
        #expect(sent.resets.map(\.streamID) == [1])
        #expect(sent.resets.first?.errorCode == HTTP2ErrorCode.cancel.rawValue)
    }
}
