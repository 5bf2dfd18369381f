import NIOCore
import NIOHTTP1
import NIOPosix

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The admin listener's routes:
///
/// | request | answer |
/// |---|---|
/// | `GET /metrics` | Prometheus text |
/// | `GET /stats` | ``MockAPNsStats`` as JSON |
/// | `GET /scenario` | the scenario in force, JSON |
/// | `PUT /scenario` (YAML or JSON body) | replaces it; 400 with the problem when invalid |
/// | `POST /goaway` | GOAWAY on every connection |
/// | `POST /reset` | TCP reset of every connection |
/// | `POST /close` | closes every connection |
/// | `POST /shutdown-storm?seconds=N` | 503 `Shutdown` to everything for N seconds (default 10, at most 86400); 400 unless N is such a number |
/// | `DELETE /shutdown-storm` | ends that storm now |
/// | `GET /deliveries?offset=N&max_bytes=M` | the record file's whole lines from byte N (``MockRecordPage``), next offset in `salvo-next-offset`; 404 without `--record`, 416 past the end |
/// | `GET /healthz` | `ok` |
final class MockAdminHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let server: MockAPNsServer
    private var head: HTTPRequestHead?
    private var body = ByteBuffer()
    /// Request bodies beyond this are refused: scenarios are small.
    private static let maximumBodySize = 1 << 20

    init(server: MockAPNsServer) {
        self.server = server
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch self.unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            self.body.clear()
        case .body(var chunk):
            if self.body.readableBytes + chunk.readableBytes <= Self.maximumBodySize { self.body.writeBuffer(&chunk) }
        case .end:
            guard let head = self.head else { return }
            self.head = nil
            self.route(head, body: self.body, context: context)
        }
    }

    private func route(_ head: HTTPRequestHead, body: ByteBuffer, context: ChannelHandlerContext) {
        let parts = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = String(parts.first ?? "")
        let query = parts.count > 1 ? String(parts[1]) : ""
        let server = self.server
        switch (head.method, path) {
        case (.GET, "/metrics"):
            self.respond(.ok, contentType: "text/plain; version=0.0.4", body: server.metricsBytes(), context: context)
        case (.GET, "/stats"):
            self.respondJSON(server.stats(), context: context)
        case (.GET, "/scenario"):
            self.respondJSON(server.scenario, context: context)
        case (.PUT, "/scenario"), (.POST, "/scenario"):
            do {
                let scenario = try MockScenario.parse(String(buffer: body))
                try server.setScenario(scenario)
                self.respondJSON(scenario, context: context)
            } catch {
                self.respond(.badRequest, body: Array("\(error.message)\n".utf8), context: context)
            }
        case (.POST, "/goaway"):
            self.afterTask(context: context) { await server.sendGoAway() }
        case (.POST, "/reset"):
            self.afterTask(context: context) { await server.resetConnections() }
        case (.POST, "/close"):
            self.afterTask(context: context) { await server.closeConnections() }
        case (.POST, "/shutdown-storm"):
            do {
                let seconds = try Self.stormSeconds(Self.queryValue("seconds", in: query))
                try server.startShutdownStorm(seconds: seconds)
                self.respond(.ok, body: Array("shutdown storm for \(seconds) s\n".utf8), context: context)
            } catch {
                self.respond(.badRequest, body: Array("\(error.message)\n".utf8), context: context)
            }
        case (.DELETE, "/shutdown-storm"):
            server.endShutdownStorm()
            self.respond(.ok, body: Array("shutdown storm ended\n".utf8), context: context)
        case (.GET, "/deliveries"):
            self.serveDeliveries(query: query, context: context)
        case (.GET, "/healthz"):
            self.respond(.ok, body: Array("ok\n".utf8), context: context)
        default:
            self.respond(.notFound, body: Array("no route \(head.method) \(path.prefix(200))\n".utf8), context: context)
        }
    }

    /// Runs an operator control, then answers `200 done`.
    private func afterTask(context: ChannelHandlerContext, _ task: @escaping @Sendable () async -> Void) {
        context.eventLoop.makeFutureWithTask(task).assumeIsolated().whenComplete { _ in
            self.respond(.ok, body: Array("done\n".utf8), context: context)
        }
    }

    /// A page of the record file, read on NIO's blocking-IO pool after the recorder's buffer is
    /// flushed, so a reader sees every acceptance up to its request rather than up to a second ago.
    private func serveDeliveries(query: String, context: ChannelHandlerContext) {
        let request: MockDeliveriesRequest
        do {
            request = try MockDeliveriesRequest { Self.queryValue($0, in: query) }
        } catch {
            self.respond(.badRequest, body: Array("\(error.message)\n".utf8), context: context)
            return
        }
        guard let path = self.server.configuration.recordPath else {
            self.respond(
                .notFound, body: Array("no record of deliveries: start the mock with --record FILE\n".utf8),
                context: context)
            return
        }
        let server = self.server
        NIOThreadPool.singleton.runIfActive(eventLoop: context.eventLoop) { () throws -> MockRecordPage? in
            server.flushListeners()
            return try MockRecordPage.read(path: path, offset: request.offset, maximumBytes: request.maximumBytes)
        }.assumeIsolated().whenComplete { result in
            switch result {
            case .success(let page?):
                self.respond(
                    .ok, contentType: "application/x-ndjson", body: page.lines, context: context,
                    headers: [
                        (MockDeliveriesRequest.nextOffsetHeader, String(page.nextOffset)),
                        (MockDeliveriesRequest.recordSizeHeader, String(page.fileSize)),
                    ])
            case .success(nil):
                self.respond(
                    .rangeNotSatisfiable, body: Array("offset \(request.offset) is past the end of the record\n".utf8),
                    context: context)
            case .failure(let error):
                self.respond(.internalServerError, body: Array("\(error)\n".utf8), context: context)
            }
        }
    }

    private func respondJSON(_ value: some Encodable, context: ChannelHandlerContext) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            var bytes = Array(try encoder.encode(value))
            bytes.append(UInt8(ascii: "\n"))
            self.respond(.ok, contentType: "application/json", body: bytes, context: context)
        } catch {
            self.respond(.internalServerError, body: Array("\(error)\n".utf8), context: context)
        }
    }

    private func respond(
        _ status: HTTPResponseStatus, contentType: String = "text/plain; charset=utf-8", body: [UInt8],
        context: ChannelHandlerContext, headers extra: [(String, String)] = []
    ) {
        var headers = HTTPHeaders()
        headers.add(name: "content-type", value: contentType)
        for (name, value) in extra { headers.add(name: name, value: value) }
        headers.add(name: "content-length", value: String(body.count))
        context.write(
            self.wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))),
            promise: nil)
        context.write(self.wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
        context.writeAndFlush(self.wrapOutboundOut(.end(nil)), promise: nil)
    }

    /// The `seconds` of a storm request: 10 when absent, else a decimal number (its range is the
    /// server's to check). Anything else is refused rather than read as the default.
    static func stormSeconds(_ text: String?) throws(MockAPNsError) -> Double {
        guard let text else { return 10 }
        guard let seconds = Double(text) else {
            throw MockAPNsError(.invalidConfiguration, "seconds must be a number, got \"\(text.prefix(40))\"")
        }
        return seconds
    }

    private static func queryValue(_ name: String, in query: String) -> String? {
        for pair in query.split(separator: "&") {
            // An empty value (`seconds=`) is a value, refused like any other non-number.
            let keyValue = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if keyValue.count == 2, keyValue[0] == name { return String(keyValue[1]) }
        }
        return nil
    }
}
