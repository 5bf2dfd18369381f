import NIOCore

/// Splits one direction of an HTTP/2 byte stream into frames, so tests assert on what went
/// over the wire (RST_STREAM counts, HEADERS per stream) independently of either endpoint.
struct FrameLog {
    struct Frame: Equatable {
        var type: UInt8
        var flags: UInt8
        var streamID: Int32
        var payload: ByteBuffer
    }

    static let data: UInt8 = 0x0
    static let headers: UInt8 = 0x1
    static let rstStream: UInt8 = 0x3
    static let settings: UInt8 = 0x4
    static let ping: UInt8 = 0x6
    static let goAway: UInt8 = 0x7
    static let windowUpdate: UInt8 = 0x8

    private static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    private var pending = ByteBuffer()
    private var expectsPreface: Bool
    private(set) var frames: [Frame] = []

    init(expectsPreface: Bool) {
        self.expectsPreface = expectsPreface
    }

    mutating func append(_ bytes: ByteBuffer) {
        var bytes = bytes
        self.pending.writeBuffer(&bytes)
        if self.expectsPreface {
            guard self.pending.readableBytes >= Self.preface.count else { return }
            precondition(self.pending.readBytes(length: Self.preface.count) == Self.preface, "missing client preface")
            self.expectsPreface = false
        }
        while self.pending.readableBytes >= 9 {
            let start = self.pending.readerIndex
            let length =
                Int(self.pending.getInteger(at: start, as: UInt16.self)!) << 8
                | Int(self.pending.getInteger(at: start + 2, as: UInt8.self)!)
            guard self.pending.readableBytes >= 9 + length else { return }
            let type = self.pending.getInteger(at: start + 3, as: UInt8.self)!
            let flags = self.pending.getInteger(at: start + 4, as: UInt8.self)!
            let streamID = Int32(bitPattern: self.pending.getInteger(at: start + 5, as: UInt32.self)! & 0x7fff_ffff)
            let payload = self.pending.getSlice(at: start + 9, length: length)!
            self.pending.moveReaderIndex(forwardBy: 9 + length)
            self.frames.append(Frame(type: type, flags: flags, streamID: streamID, payload: payload))
        }
    }

    func frames(ofType type: UInt8) -> [Frame] {
        self.frames.filter { $0.type == type }
    }

    /// RST_STREAM frames as (stream, error code).
    var resets: [(streamID: Int32, errorCode: UInt32)] {
        self.frames(ofType: Self.rstStream).map {
            ($0.streamID, $0.payload.getInteger(at: $0.payload.readerIndex, as: UInt32.self)!)
        }
    }

    /// Builds one frame's bytes (for tests that play a hand-written peer).
    static func encode(type: UInt8, flags: UInt8, streamID: Int32, payload: [UInt8]) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.writeInteger(UInt8(truncatingIfNeeded: payload.count >> 16))
        buffer.writeInteger(UInt16(truncatingIfNeeded: payload.count))
        buffer.writeInteger(type)
        buffer.writeInteger(flags)
        buffer.writeInteger(UInt32(bitPattern: streamID))
        buffer.writeBytes(payload)
        return buffer
    }
}
