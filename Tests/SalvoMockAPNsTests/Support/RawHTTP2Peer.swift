import NIOCore
import NIOPosix
import Synchronization

/// A hand-written HTTP/2 client over cleartext TCP (prior knowledge), for requests no
/// well-behaved encoder produces: a 65,536-byte header name, thousands of fields. Header blocks
/// are HPACK literals without indexing or Huffman coding, cut into HEADERS and CONTINUATION
/// frames of 16 KiB; what the server sends back is kept and parsed into frames.
final class RawHTTP2Peer: Sendable {
    struct Frame: Sendable {
        var type: UInt8
        var flags: UInt8
        var streamID: UInt32
        var payload: [UInt8]
    }

    static let headers: UInt8 = 0x1
    static let rstStream: UInt8 = 0x3
    static let goAway: UInt8 = 0x7

    private let channel: any Channel
    private let received: Collector

    private init(channel: any Channel, received: Collector) {
        self.channel = channel
        self.received = received
    }

    static func connect(port: Int) async throws -> RawHTTP2Peer {
        let collector = Collector()
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(collector) }
            }
            .connect(host: "127.0.0.1", port: port)
            .get()
        let peer = RawHTTP2Peer(channel: channel, received: collector)
        var opening = ByteBuffer(string: "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
        opening.writeImmutableBuffer(Self.frame(type: 0x4, flags: 0, streamID: 0, payload: []))
        try await peer.send(opening)
        return peer
    }

    func send(_ bytes: ByteBuffer) async throws {
        try await self.channel.writeAndFlush(bytes)
    }

    /// A request on `streamID`: `fields` in order (pseudo-headers first), END_STREAM on the
    /// header block when there is no body, else on one DATA frame carrying it.
    static func request(streamID: UInt32, fields: [(name: [UInt8], value: [UInt8])], body: [UInt8]? = nil) -> ByteBuffer
    {
        var block: [UInt8] = []
        for field in fields {
            block.append(0x00)  // literal without indexing, new name
            block += Self.hpackLength(field.name.count) + field.name
            block += Self.hpackLength(field.value.count) + field.value
        }
        var bytes = ByteBuffer()
        let chunks = stride(from: 0, to: block.count, by: 16_384).map {
            Array(block[$0..<min($0 + 16_384, block.count)])
        }
        for (index, chunk) in chunks.enumerated() {
            var flags: UInt8 = index == chunks.count - 1 ? 0x4 : 0  // END_HEADERS
            if index == 0, body == nil { flags |= 0x1 }  // END_STREAM
            bytes.writeImmutableBuffer(
                Self.frame(type: index == 0 ? Self.headers : 0x9, flags: flags, streamID: streamID, payload: chunk))
        }
        if let body { bytes.writeImmutableBuffer(Self.frame(type: 0x0, flags: 0x1, streamID: streamID, payload: body)) }
        return bytes
    }

    /// The frames received so far.
    var frames: [Frame] {
        var bytes = self.received.bytes
        var frames: [Frame] = []
        while bytes.readableBytes >= 9,
            let length = bytes.getInteger(at: bytes.readerIndex, as: UInt32.self).map({ Int($0 >> 8) }),
            bytes.readableBytes >= 9 + length
        {
            bytes.moveReaderIndex(forwardBy: 3)
            let type = bytes.readInteger(as: UInt8.self)!
            let flags = bytes.readInteger(as: UInt8.self)!
            let streamID = bytes.readInteger(as: UInt32.self)! & 0x7fff_ffff
            frames.append(
                Frame(type: type, flags: flags, streamID: streamID, payload: bytes.readBytes(length: length)!))
        }
        return frames
    }

    /// RST_STREAM frames as (stream, error code).
    var resets: [(streamID: UInt32, errorCode: UInt32)] {
        self.frames.filter { $0.type == Self.rstStream }.map { frame in
            (frame.streamID, frame.payload.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        }
    }

    func close() async {
        try? await self.channel.close()
    }

    /// HPACK string length with a 7-bit prefix and the Huffman bit clear (RFC 7541 §5.1).
    private static func hpackLength(_ value: Int) -> [UInt8] {
        guard value >= 127 else { return [UInt8(value)] }
        var bytes: [UInt8] = [127]
        var rest = value - 127
        while rest >= 128 {
            bytes.append(UInt8(rest & 0x7f) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
        return bytes
    }

    private static func frame(type: UInt8, flags: UInt8, streamID: UInt32, payload: [UInt8]) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.writeInteger(UInt32(payload.count) << 8 | UInt32(type))
        buffer.writeInteger(flags)
        buffer.writeInteger(streamID)
        buffer.writeBytes(payload)
        return buffer
    }

    /// Keeps every byte read, under a lock: written on the event loop, read by the test.
    private final class Collector: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        private let buffer = Mutex(ByteBuffer())

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var bytes = self.unwrapInboundIn(data)
            self.buffer.withLock { _ = $0.writeBuffer(&bytes) }
        }

        var bytes: ByteBuffer { self.buffer.withLock { $0 } }
    }
}
