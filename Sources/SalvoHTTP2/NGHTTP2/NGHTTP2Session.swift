import CNGHTTP2
import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Owns one `nghttp2_session*` in memory mode: bytes in through `receive`, bytes out through
/// `send`. Every call into libnghttp2 and every pointer it hands out stays in this folder; the
/// owner sees Swift values, slots, and (for received DATA) a buffer valid for one call.
///
/// Lifetime: the C session is created in `init` and deleted in `deinit`, so it never outlives
/// this object, and nghttp2 only calls back synchronously from inside the calls made here.
/// That is why `user_data` can hold an unretained pointer to `self`. Confined to one event loop
/// (not `Sendable`).
final class NGHTTP2Session {
    enum Role {
        case client
        case server
    }

    /// What nghttp2 needs to know at creation time.
    struct Options {
        var role: Role
        /// The peer's SETTINGS_MAX_CONCURRENT_STREAMS assumed until its first SETTINGS arrive.
        var assumedPeerMaxConcurrentStreams: Int
        /// Our SETTINGS, sent first on the connection.
        var settings: [(id: NGHTTP2SettingsID, value: UInt32)]
        /// The connection-level receive window (stream windows come from SETTINGS).
        var connectionWindowSize: Int
        /// Header fields kept from received header blocks (lower-case names); nil keeps all.
        var keptHeaderNames: [String]? = nil
        /// Header fields sent as never-indexed literals (lower-case names).
        var unindexedHeaderNames: [String] = []
        /// Largest received header block, RFC 9113 §6.5.2 style (see
        /// `HTTP2SessionHandler.Configuration.maxHeaderListSize`).
        var maxHeaderListSize: Int = 64 << 10
    }

    private let session: OpaquePointer
    /// Serves nghttp2's allocations; outlives `session` (deleted first in `deinit`).
    private let allocator = NGHTTP2Allocator()
    /// Owned by the handler that owns this session: unowned(unsafe) avoids reference counting on
    /// every callback, and is safe because the owner drops the session before it goes away.
    private unowned(unsafe) let delegate: any NGHTTP2SessionDelegate
    /// Header block being assembled between `on_begin_headers` and `on_frame_recv`.
    private var headerBlock = HTTP2Headers()
    private var headerStatus: Int?
    /// The block's size so far as RFC 9113 §6.5.2 counts it (every field, kept or not).
    private var headerBlockSize = 0
    /// Client: the block outgrew `maxHeaderListSize`; later fields are dropped unread.
    private var headerBlockTooLarge = false
    private let role: Role
    private let maxHeaderListSize: Int
    /// `Options.keptHeaderNames`, compared with every received name.
    private let keptHeaderNames: NGHTTP2HeaderNameSet?
    /// `Options.unindexedHeaderNames`, compared with every sent name.
    private let unindexedHeaderNames: NGHTTP2HeaderNameSet
    /// Reusable `nghttp2_nv` array; nghttp2 copies names and values during the submit call,
    /// except a shared block's (``sharedEntries``).
    private var nameValues: UnsafeMutablePointer<nghttp2_nv>
    /// The entries of the last shared header block, and the blocks queued frames may still read.
    private let sharedEntries = NGHTTP2SharedEntries()
    private var nameValueCapacity = 16
    #if DEBUG
    /// Inside `receive` or `send` (see `enteringIO`).
    private var isInsideIO = false
    #endif
    /// Recent peak of the bytes ``send(into:overflow:allocator:limit:)`` produced: the next buffer's size.
    private var lastSendSize = 0
    /// Three ASCII digits of a response's `:status`, referenced by `nameValues`.
    private let statusDigits = UnsafeMutablePointer<UInt8>.allocate(capacity: 3)

    init(options: Options, delegate: any NGHTTP2SessionDelegate) throws(HTTP2Error) {
        self.delegate = delegate
        self.role = options.role
        self.maxHeaderListSize = options.maxHeaderListSize
        self.keptHeaderNames = options.keptHeaderNames.map(NGHTTP2HeaderNameSet.init)
        self.unindexedHeaderNames = NGHTTP2HeaderNameSet(options.unindexedHeaderNames)
        self.nameValues = .allocate(capacity: self.nameValueCapacity)

        var callbacks: OpaquePointer?
        try Self.check(nghttp2_session_callbacks_new(&callbacks), "nghttp2_session_callbacks_new")
        // nghttp2 copies the callback table and the options into the session.
        defer { nghttp2_session_callbacks_del(callbacks) }
        Self.install(into: callbacks)
        var option: OpaquePointer?
        try Self.check(nghttp2_option_new(&option), "nghttp2_option_new")
        defer { nghttp2_option_del(option) }
        nghttp2_option_set_peer_max_concurrent_streams(
            option, UInt32(clamping: options.assumedPeerMaxConcurrentStreams))
        // Nothing here uses RFC 7540 stream priorities: closed streams need not be kept for the
        // dependency tree (a server would otherwise keep up to a connection's stream limit of them).
        nghttp2_option_set_no_closed_streams(option, 1)

        var created: OpaquePointer?
        var mem = self.allocator.makeMem()  // copied into the session
        switch options.role {
        case .client:
            try Self.check(
                nghttp2_session_client_new3(&created, callbacks, nil, option, &mem), "nghttp2_session_client_new3")
        case .server:
            try Self.check(
                nghttp2_session_server_new3(&created, callbacks, nil, option, &mem), "nghttp2_session_server_new3")
        }
        self.session = created!
        nghttp2_session_set_user_data(self.session, Unmanaged.passUnretained(self).toOpaque())

        var entries = options.settings.map { nghttp2_settings_entry(settings_id: $0.id.rawValue, value: $0.value) }
        try Self.check(
            nghttp2_submit_settings(self.session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &entries, entries.count),
            "nghttp2_submit_settings"
        )
        // 65,535 is NGHTTP2_INITIAL_CONNECTION_WINDOW_SIZE (a macro Swift cannot import).
        if options.connectionWindowSize > 65_535 {
            try Self.check(
                nghttp2_session_set_local_window_size(
                    self.session, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, Int32(clamping: options.connectionWindowSize)),
                "nghttp2_session_set_local_window_size"
            )
        }
    }

    deinit {
        nghttp2_session_del(self.session)
        self.nameValues.deallocate()
        self.statusDigits.deallocate()
    }

    /// Runs `body` with the session behind nghttp2's `user_data`, in every callback. Without a
    /// retain: nghttp2 calls back only from inside this session's own calls, so the session is
    /// alive for the call (a retain and release per header field were ~4 % of a server request).
    static func with<Result>(_ userData: UnsafeMutableRawPointer?, _ body: (NGHTTP2Session) -> Result) -> Result {
        Unmanaged<NGHTTP2Session>.fromOpaque(userData!)._withUnsafeGuaranteedRef(body)
    }

    /// The one checked-call helper: a negative nghttp2 return becomes a `.library` error carrying
    /// `nghttp2_strerror`'s text.
    @discardableResult
    static func check<Result: BinaryInteger>(_ result: Result, _ call: StaticString) throws(HTTP2Error) -> Result {
        guard result < 0 else { return result }
        let code = Int32(truncatingIfNeeded: result)
        throw HTTP2Error(.library, "\(call): \(String(cString: nghttp2_strerror(code)))", libraryErrorCode: code)
    }

    // MARK: Bytes in and out

    /// Feeds received bytes to nghttp2; callbacks fire from inside.
    func receive(_ bytes: ByteBuffer) throws(HTTP2Error) {
        self.enteringIO("nghttp2_session_mem_recv")
        defer { self.leftIO() }
        let result = bytes.withUnsafeReadableBytes { raw in
            nghttp2_session_mem_recv(self.session, raw.bindMemory(to: UInt8.self).baseAddress, raw.count)
        }
        try Self.check(result, "nghttp2_session_mem_recv")
    }

    /// Appends what nghttp2 wants to send to `buffer` (allocated on first output) until nothing
    /// is left, `buffer` holds `limit` bytes, or a chunk does not fit in `buffer`'s capacity: that
    /// chunk starts `overflow`, a new buffer, which the caller writes after `buffer`. Returns
    /// whether more may be pending.
    ///
    /// Why not grow `buffer`: growing reallocated and copied everything written so far (~250
    /// instructions a request in a campaign, whose writes vary between ~100 and 256 KiB).
    func send(
        into buffer: inout ByteBuffer?, overflow: inout ByteBuffer?, allocator: ByteBufferAllocator, limit: Int
    ) throws(HTTP2Error) -> Bool {
        self.enteringIO("nghttp2_session_mem_send")
        defer {
            // A decaying peak: the small writes between a campaign's large ones (acknowledgements,
            // window updates) must not shrink the next large one's buffer.
            let written = (buffer?.readableBytes ?? 0) + (overflow?.readableBytes ?? 0)
            self.lastSendSize = max(written, self.lastSendSize - self.lastSendSize / 8)
            self.leftIO()
        }
        // As large as the recent writes (and a frame more), up to the limit and the frame that
        // may overshoot it.
        let expected = min(self.lastSendSize + 16 * 1024, limit + 32 * 1024)
        while (buffer?.readableBytes ?? 0) < limit {
            var data: UnsafePointer<UInt8>?
            let count = try Self.check(nghttp2_session_mem_send(self.session, &data), "nghttp2_session_mem_send")
            if count == 0 {
                // Nothing queued can point into a replaced shared block any more.
                if self.sharedEntries.hasRetired, nghttp2_session_get_outbound_queue_size(self.session) == 0 {
                    self.sharedEntries.releaseRetired()
                }
                return false
            }
            // `data` stays valid only until the next nghttp2 call: copy it now.
            let bytes = UnsafeRawBufferPointer(start: data, count: count)
            guard buffer != nil else {
                buffer = allocator.buffer(capacity: max(count, min(limit, 64 * 1024), expected))
                buffer!.writeBytes(bytes)
                continue
            }
            guard buffer!.writableBytes >= count else {
                overflow = allocator.buffer(capacity: max(count, expected))
                overflow!.writeBytes(bytes)
                return true
            }
            buffer!.writeBytes(bytes)
        }
        return true
    }

    /// Debug builds only: nghttp2 must not be re-entered through `mem_recv` or `mem_send` from
    /// inside its own callbacks, which the handler ensures by delivering answers after those calls
    /// return. This turns a change that breaks that into a crash at the call, not a corrupt session.
    private func enteringIO(_ call: StaticString) {
        #if DEBUG
        precondition(!self.isInsideIO, "\(call) called from inside an nghttp2 callback")
        self.isInsideIO = true
        #endif
    }

    private func leftIO() {
        #if DEBUG
        self.isInsideIO = false
        #endif
    }

    /// False once the session has nothing left to do (GOAWAY exchanged and no active streams):
    /// nghttp2's signal to close the connection.
    var isAlive: Bool {
        nghttp2_session_want_read(self.session) != 0 || nghttp2_session_want_write(self.session) != 0
    }

    // MARK: Submissions (queued; they go out on the next `send`)

    /// Queues a request and returns its stream ID. `slot` names the stream in every callback.
    func submitRequest(
        headers: HTTP2Headers, shared: HTTP2SharedHeaders?, hasBody: Bool, slot: Int
    ) throws(HTTP2Error)
        -> Int32
    {
        let userData = Self.pointer(slot: slot)
        return try self.withNameValues(headers, shared: shared, status: nil) {
            (nva, count) throws(HTTP2Error) in
            try Self.check(
                hasBody
                    ? withUnsafePointer(to: Self.makeBodyProvider(userData)) {
                        nghttp2_submit_request(self.session, nil, nva, count, $0, userData)
                    }
                    : nghttp2_submit_request(self.session, nil, nva, count, nil, userData),
                "nghttp2_submit_request"
            )
        }
    }

    /// Queues a response on a stream the peer opened; its body (if any) is pulled from the
    /// delegate's `slot`.
    func submitResponse(streamID: Int32, _ response: HTTP2Response, slot: Int) throws(HTTP2Error) {
        guard (100...999).contains(response.status) else {
            throw HTTP2Error(.invalidOperation, "status \(response.status) is not three digits")
        }
        let hasBody = (response.body?.readableBytes ?? 0) > 0
        _ = try self.withNameValues(response.headers, shared: nil, status: response.status) {
            (nva, count) throws(HTTP2Error) in
            try Self.check(
                hasBody
                    ? withUnsafePointer(to: Self.makeBodyProvider(Self.pointer(slot: slot))) {
                        nghttp2_submit_response(self.session, streamID, nva, count, $0)
                    }
                    : nghttp2_submit_response(self.session, streamID, nva, count, nil),
                "nghttp2_submit_response"
            )
        }
    }

    /// Whether nghttp2 has opened the stream, i.e. started writing its HEADERS. A submitted
    /// request that is not open is still queued (no stream credit yet) and was never sent.
    func hasOpened(streamID: Int32) -> Bool {
        nghttp2_session_find_stream(self.session, streamID) != nil
    }

    /// The slot of an open stream, from nghttp2's stream user data.
    func slot(forStreamID streamID: Int32) -> Int? {
        Self.slot(nghttp2_session_get_stream_user_data(self.session, streamID))
    }

    /// Slots travel through nghttp2 as `void *` user data: slot + 1, so that 0 means none.
    static func pointer(slot: Int) -> UnsafeMutableRawPointer? {
        UnsafeMutableRawPointer(bitPattern: slot + 1)
    }

    static func slot(_ pointer: UnsafeMutableRawPointer?) -> Int? {
        pointer.map { Int(bitPattern: $0) - 1 }
    }

    func submitSettings(_ settings: [(id: NGHTTP2SettingsID, value: UInt32)]) throws(HTTP2Error) {
        var entries = settings.map { nghttp2_settings_entry(settings_id: $0.id.rawValue, value: $0.value) }
        try Self.check(
            nghttp2_submit_settings(self.session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &entries, entries.count),
            "nghttp2_submit_settings"
        )
    }

    func submitGoAway(lastStreamID: Int32, errorCode: HTTP2ErrorCode, debugData: ByteBuffer) throws(HTTP2Error) {
        let result = debugData.withUnsafeReadableBytes { raw in
            nghttp2_submit_goaway(
                self.session, UInt8(NGHTTP2_FLAG_NONE.rawValue), lastStreamID, errorCode.rawValue,
                raw.bindMemory(to: UInt8.self).baseAddress, raw.count)
        }
        try Self.check(result, "nghttp2_submit_goaway")
    }

    func submitReset(streamID: Int32, errorCode: HTTP2ErrorCode) throws(HTTP2Error) {
        try Self.check(
            nghttp2_submit_rst_stream(self.session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, errorCode.rawValue),
            "nghttp2_submit_rst_stream"
        )
    }

    func submitPing(data: UInt64) throws(HTTP2Error) {
        var bigEndian = data.bigEndian
        let result = withUnsafeBytes(of: &bigEndian) { raw in
            nghttp2_submit_ping(
                self.session, UInt8(NGHTTP2_FLAG_NONE.rawValue), raw.bindMemory(to: UInt8.self).baseAddress)
        }
        try Self.check(result, "nghttp2_submit_ping")
    }

    // MARK: Session facts

    var remoteSettings: HTTP2RemoteSettings {
        func get(_ id: nghttp2_settings_id) -> Int { Int(nghttp2_session_get_remote_settings(self.session, id)) }
        return HTTP2RemoteSettings(
            maxConcurrentStreams: get(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS),
            initialWindowSize: get(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE),
            maxFrameSize: get(NGHTTP2_SETTINGS_MAX_FRAME_SIZE),
            maxHeaderListSize: get(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE)
        )
    }

    /// The highest peer-initiated stream ID passed to the application: a graceful GOAWAY's
    /// last-stream-id.
    var lastProcessedStreamID: Int32 {
        nghttp2_session_get_last_proc_stream_id(self.session)
    }

    // MARK: Helpers for the callbacks (see NGHTTP2Session+Callbacks.swift)

    /// Points `nameValues` at `headers`' bytes (plus `:status` first when given) for one call;
    /// with a shared block, at `headers`' pseudo-header fields, the block's entries, then
    /// `headers`' regular fields (pseudo-header fields must come first).
    private func withNameValues<Result>(
        _ headers: HTTP2Headers,
        shared: HTTP2SharedHeaders?,
        status: Int?,
        _ body: (UnsafePointer<nghttp2_nv>, Int) throws(HTTP2Error) -> Result
    ) throws(HTTP2Error) -> Result {
        // Read once: each read of the property is a retain and release.
        let sharedEntries = self.sharedEntries
        var sharedCount = 0
        if let shared {
            if shared !== sharedEntries.block { sharedEntries.use(shared) { self.unindexedHeaderNames.contains($0) } }
            sharedCount = sharedEntries.count
        }
        let count = headers.count + sharedCount + (status == nil ? 0 : 1)
        // With a shared block, `headers`' regular fields wait behind the array's end until the
        // block's entries are in: one pass over `headers`, not one for each kind of field.
        let capacity = sharedCount == 0 ? count : count + headers.count
        if capacity > self.nameValueCapacity {
            self.nameValues.deallocate()
            self.nameValueCapacity = max(capacity, self.nameValueCapacity * 2)
            self.nameValues = .allocate(capacity: self.nameValueCapacity)
        }
        let flags = UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)
        let noIndex = UInt8(NGHTTP2_NV_FLAG_NO_INDEX.rawValue)
        var index = 0
        if let status {
            self.statusDigits[0] = UInt8(ascii: "0") + UInt8(status / 100)
            self.statusDigits[1] = UInt8(ascii: "0") + UInt8(status / 10 % 10)
            self.statusDigits[2] = UInt8(ascii: "0") + UInt8(status % 10)
            Self.statusName.withUTF8Buffer { name in
                self.nameValues[0] = nghttp2_nv(
                    name: UnsafeMutablePointer(mutating: name.baseAddress!), value: self.statusDigits,
                    namelen: name.count, valuelen: 3, flags: flags)
            }
            index = 1
        }
        let storage = headers.storage
        return try storage.withUnsafeReadableBytes { (raw) throws(HTTP2Error) -> Result in
            let base = UnsafeMutablePointer(mutating: raw.bindMemory(to: UInt8.self).baseAddress)
            let origin = storage.readerIndex
            var regular = count
            headers.forEachEntry { name, value in
                let namePointer = base! + (name.lowerBound - origin)
                let entry = nghttp2_nv(
                    name: namePointer, value: base! + (value.lowerBound - origin),
                    namelen: name.count, valuelen: value.count,
                    flags: self.unindexedHeaderNames.contains(
                        UnsafeRawBufferPointer(start: namePointer, count: name.count))
                        ? noIndex : flags)
                if sharedCount == 0 || (!name.isEmpty && namePointer.pointee == UInt8(ascii: ":")) {
                    self.nameValues[index] = entry
                    index += 1
                } else {
                    self.nameValues[regular] = entry
                    regular += 1
                }
                return true
            }
            if sharedCount > 0 {
                (self.nameValues + index).update(from: sharedEntries.entries, count: sharedCount)
                index += sharedCount
                // The regular fields, from behind the end to the end: the two ranges are apart.
                (self.nameValues + index).update(from: self.nameValues + count, count: regular - count)
            }
            return try body(self.nameValues, count)
        }
    }

    private static let statusName: StaticString = ":status"

    func beginHeaders(streamID: Int32, isRequest: Bool) {
        // With a filter most blocks keep little or nothing: no capacity reserved up front.
        self.headerBlock = self.keptHeaderNames == nil ? HTTP2Headers(minimumCapacity: 256) : HTTP2Headers()
        self.headerStatus = nil
        self.headerBlockSize = 0
        self.headerBlockTooLarge = false
        if isRequest {
            let slot = self.delegate.sessionPeerOpenedStream(streamID: streamID)
            nghttp2_session_set_stream_user_data(self.session, streamID, Self.pointer(slot: slot))
        }
    }

    /// Stores one received field; false when the block just outgrew its bounds and a server
    /// reset the stream (nghttp2 must then be told to stop: `NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE`).
    /// Names and values come from the network: without this bound a peer could make us store
    /// megabytes with a few HPACK bytes, and a 65,536-byte name would not fit `HTTP2Headers`.
    func addHeader(streamID: Int32, name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) -> Bool {
        guard !self.headerBlockTooLarge else { return true }
        self.headerBlockSize += name.count + value.count + 32
        guard self.headerBlockSize <= self.maxHeaderListSize, HTTP2Headers.fits(name: name.count, value: value.count)
        else {
            return self.headerBlockExceeded(streamID: streamID)
        }
        if name.count == 7, self.headerStatus == nil, memcmp(name.baseAddress!, Self.statusName.utf8Start, 7) == 0 {
            self.headerStatus = Self.parseStatus(value)
        } else if self.isKept(name) {
            self.headerBlock.add(name: name, value: value)
        }
        return true
    }

    /// Server: resets the stream with PROTOCOL_ERROR (the request is never delivered; the
    /// connection goes on). Client: remembers it, so the request fails once the server ends the
    /// stream, without a reset (the server may already have ended it).
    private func headerBlockExceeded(streamID: Int32) -> Bool {
        self.headerBlockTooLarge = true
        self.headerBlock = HTTP2Headers()
        switch self.role {
        case .server:
            // nghttp2 sends INTERNAL_ERROR for a failed callback unless a reset was submitted first.
            _ = nghttp2_submit_rst_stream(
                self.session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, HTTP2ErrorCode.protocolError.rawValue)
            return false
        case .client:
            return true
        }
    }

    private func isKept(_ name: UnsafeRawBufferPointer) -> Bool {
        self.keptHeaderNames?.contains(name) ?? true
    }

    func endHeaders(streamID: Int32, endStream: Bool) {
        let headers = self.headerBlock
        self.headerBlock = HTTP2Headers()
        guard let slot = self.slot(forStreamID: streamID) else { return }
        if self.headerBlockTooLarge { self.delegate.sessionHeaderBlockTooLarge(slot: slot) }
        self.delegate.sessionReceivedHeaders(
            slot: slot, status: self.headerStatus, headers: headers, endStream: endStream)
    }

    private static func parseStatus(_ value: UnsafeRawBufferPointer) -> Int? {
        guard value.count == 3 else { return nil }
        var status = 0
        for digit in value {
            guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else { return nil }
            status = status * 10 + Int(digit - UInt8(ascii: "0"))
        }
        return status
    }

    /// Copies the next part of a stream's body into nghttp2's DATA frame buffer.
    func readBody(slot: Int, into buffer: UnsafeMutableRawBufferPointer, endOfData: inout Bool) -> Int? {
        guard var body = self.delegate.sessionTakeOutboundBody(slot: slot) else { return nil }
        let copied = body.readWithUnsafeReadableBytes { source in
            let count = min(source.count, buffer.count)
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[0..<count]))
            return count
        }
        if body.readableBytes == 0 {
            endOfData = true
        } else {
            self.delegate.sessionReturnOutboundBody(slot: slot, body)
        }
        return copied
    }

    func receivedData(streamID: Int32, bytes: UnsafeRawBufferPointer) {
        guard let slot = self.slot(forStreamID: streamID) else { return }
        self.delegate.sessionReceivedData(slot: slot, bytes: bytes)
    }

    func peerEndedStream(streamID: Int32) {
        guard let slot = self.slot(forStreamID: streamID) else { return }
        self.delegate.sessionPeerEndedStream(slot: slot)
    }

    func peerResetStream(streamID: Int32) {
        guard let slot = self.slot(forStreamID: streamID) else { return }
        self.delegate.sessionPeerResetStream(slot: slot)
    }

    func streamClosed(streamID: Int32, errorCode: UInt32) {
        guard let slot = self.slot(forStreamID: streamID) else { return }
        self.delegate.sessionStreamClosed(slot: slot, errorCode: HTTP2ErrorCode(rawValue: errorCode))
    }

    func droppedHeaders(streamID: Int32, libraryErrorCode: Int32) {
        self.delegate.sessionDroppedHeaders(streamID: streamID, libraryErrorCode: libraryErrorCode)
    }

    var sessionDelegate: any NGHTTP2SessionDelegate { self.delegate }
}
