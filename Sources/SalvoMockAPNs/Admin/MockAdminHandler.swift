import NIOCore
import NIOHTTP1

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
/// | `POST /shutdown-storm?seconds=N` | 503 `Shutdown` to everything for N seconds (default 10) |
/// | `DELETE /shutdown-storm` | ends that storm now |
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
            let seconds = Self.queryValue("seconds", in: query).flatMap(Double.init) ?? 10
            guard seconds > 0 else {
                self.respond(.badRequest, body: Array("seconds must be > 0\n".utf8), context: context)
                return
            }
            server.startShutdownStorm(seconds: seconds)
            self.respond(.ok, body: Array("shutdown storm for \(seconds) s\n".utf8), context: context)
        case (.DELETE, "/shutdown-storm"):
            server.endShutdownStorm()
            self.respond(.ok, body: Array("shutdown storm ended\n".utf8), context: context)
        case (.GET, "/healthz"):
            self.respond(.ok, body: Array("ok\n".utf8), context: context)
        default:
            self.respond(.notFound, body: Array("no route \(head.method) \(path)\n".utf8), context: context)
        }
    }

    /// Runs an operator control, then answers `200 done`.
    private func afterTask(context: ChannelHandlerContext, _ task: @escaping @Sendable () async -> Void) {
        context.eventLoop.makeFutureWithTask(task).assumeIsolated().whenComplete { _ in
            self.respond(.ok, body: Array("done\n".utf8), context: context)
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
        context: ChannelHandlerContext
    ) {
        var headers = HTTPHeaders()
        headers.add(name: "content-type", value: contentType)
        headers.add(name: "content-length", value: String(body.count))
        context.write(self.wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        context.write(self.wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
        context.writeAndFlush(self.wrapOutboundOut(.end(nil)), promise: nil)
    }

    private static func queryValue(_ name: String, in query: String) -> String? {
        for pair in query.split(separator: "&") {
            let keyValue = pair.split(separator: "=", maxSplits: 1)
            if keyValue.count == 2, keyValue[0] == name { return String(keyValue[1]) }
        }
        return nil
    }
}
