import CNGHTTP2
import NIOCore

/// The C callback table. Each entry is a non-capturing closure (so it converts to a C function
/// pointer) that recovers the session from `user_data` and forwards Swift values.
extension NGHTTP2Session {
    private static let typeHeaders = UInt8(NGHTTP2_HEADERS.rawValue)
    private static let typeData = UInt8(NGHTTP2_DATA.rawValue)
    private static let typeSettings = UInt8(NGHTTP2_SETTINGS.rawValue)
    private static let typeResetStream = UInt8(NGHTTP2_RST_STREAM.rawValue)
    private static let typeGoAway = UInt8(NGHTTP2_GOAWAY.rawValue)
    private static let typePing = UInt8(NGHTTP2_PING.rawValue)
    private static let flagEndStream = UInt8(NGHTTP2_FLAG_END_STREAM.rawValue)
    private static let flagAck = UInt8(NGHTTP2_FLAG_ACK.rawValue)

    static func install(into callbacks: OpaquePointer?) {
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks) { _, frame, userData in
            guard let frame else { return 0 }
            NGHTTP2Session.with(userData) { session in
                session.beginHeaders(
                    streamID: frame.pointee.hd.stream_id, isRequest: frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST)
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) {
            _, frame, name, nameLength, value, valueLength, _, userData in
            let kept = NGHTTP2Session.with(userData) { session in
                session.addHeader(
                    streamID: frame?.pointee.hd.stream_id ?? 0,
                    name: UnsafeRawBufferPointer(start: name, count: nameLength),
                    value: UnsafeRawBufferPointer(start: value, count: valueLength))
            }
            return kept ? 0 : NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, userData in
            guard let frame else { return 0 }
            NGHTTP2Session.with(userData) { session in
                session.frameReceived(frame)
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, streamID, data, length, userData in
            NGHTTP2Session.with(userData) { session in
                session.receivedData(
                    streamID: streamID, bytes: UnsafeRawBufferPointer(start: data, count: length))
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, streamID, errorCode, userData in
            NGHTTP2Session.with(userData) { session in
                session.streamClosed(streamID: streamID, errorCode: errorCode)
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_not_send_callback(callbacks) { _, frame, libraryErrorCode, userData in
            if let frame, frame.pointee.hd.type == NGHTTP2Session.typeHeaders {
                NGHTTP2Session.with(userData) { session in
                    session.droppedHeaders(
                        streamID: frame.pointee.hd.stream_id, libraryErrorCode: libraryErrorCode)
                }
            }
            return 0
        }
    }

    /// The data provider handed to nghttp2 with every request or response that has a body;
    /// its source is the stream's slot.
    static func makeBodyProvider(_ slot: UnsafeMutableRawPointer?) -> nghttp2_data_provider {
        nghttp2_data_provider(
            source: nghttp2_data_source(ptr: slot),
            read_callback: { _, _, buffer, length, dataFlags, source, userData in
                var endOfData = false
                guard let slot = NGHTTP2Session.slot(source?.pointee.ptr) else {
                    return ssize_t(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)
                }
                let copied = NGHTTP2Session.with(userData) { session in
                    session.readBody(
                        slot: slot, into: UnsafeMutableRawBufferPointer(start: buffer, count: length),
                        endOfData: &endOfData)
                }
                guard let copied else { return ssize_t(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue) }
                if endOfData { dataFlags!.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
                return copied
            })
    }

    private func frameReceived(_ frame: UnsafePointer<nghttp2_frame>) {
        let header = frame.pointee.hd
        switch header.type {
        case Self.typeHeaders:
            self.endHeaders(streamID: header.stream_id, endStream: header.flags & Self.flagEndStream != 0)
        case Self.typeData:
            if header.flags & Self.flagEndStream != 0 {
                self.peerEndedStream(streamID: header.stream_id)
            }
        case Self.typeResetStream:
            self.peerResetStream(streamID: header.stream_id)
        case Self.typeSettings:
            if header.flags & Self.flagAck != 0 {
                self.sessionDelegate.sessionReceivedSettingsAck()
            } else {
                self.sessionDelegate.sessionReceivedSettings()
            }
        case Self.typeGoAway:
            let goAway = frame.pointee.goaway
            var debugData = ByteBuffer()
            if let opaque = goAway.opaque_data, goAway.opaque_data_len > 0 {
                debugData.writeBytes(UnsafeRawBufferPointer(start: opaque, count: goAway.opaque_data_len))
            }
            self.sessionDelegate.sessionReceivedGoAway(
                HTTP2GoAway(
                    lastStreamID: goAway.last_stream_id, errorCode: HTTP2ErrorCode(rawValue: goAway.error_code),
                    debugData: debugData))
        case Self.typePing:
            if header.flags & Self.flagAck != 0 {
                let data = withUnsafeBytes(of: frame.pointee.ping.opaque_data) {
                    UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self))
                }
                self.sessionDelegate.sessionReceivedPingAck(data: data)
            }
        default:
            break
        }
    }
}
