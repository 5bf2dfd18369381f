import NIOCore
import NIOPosix
import NIOSSL
import SalvoHTTP2

/// A server-mode `HTTP2SessionHandler` listening on 127.0.0.1 port 0, answering every request
/// with `TestResponder.echo`, optionally behind TLS. Stopped by the test with `close()`.
struct LoopbackServer {
    let channel: any Channel
    var port: Int { self.channel.localAddress?.port ?? 0 }

    static func start(group: any EventLoopGroup, tls: NIOSSLContext? = nil) async throws -> LoopbackServer {
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    if let tls { try sync.addHandler(NIOSSLServerHandler(context: tls)) }
                    try sync.addHandler(HTTP2SessionHandler(mode: .server))
                    try sync.addHandler(TestResponder(policy: TestResponder.echo))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        return LoopbackServer(channel: channel)
    }

    func close() async {
        try? await self.channel.close()
    }
}

/// A client-mode `HTTP2SessionHandler` connected over TCP (and optionally TLS).
struct LoopbackClient {
    let channel: any Channel

    static func connect(
        group: any EventLoopGroup, port: Int, tls: NIOSSLContext? = nil, serverHostname: String? = nil
    ) async throws -> LoopbackClient {
        let channel = try await ClientBootstrap(group: group)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    if let tls {
                        try sync.addHandler(NIOSSLClientHandler(context: tls, serverHostname: serverHostname))
                    }
                    try sync.addHandler(HTTP2SessionHandler(mode: .client))
                }
            }
            .connect(host: "127.0.0.1", port: port)
            .get()
        return LoopbackClient(channel: channel)
    }

    /// Submits `count` requests at once from the event loop (as a pool would) and waits for all.
    func send(
        count: Int, authority: String, scheme: String, path: @escaping @Sendable (Int) -> String, body: String
    )
        async throws -> [HTTP2Response]
    {
        let channel = self.channel
        let futures = try await channel.eventLoop.submit {
            let handler = try channel.pipeline.syncOperations.handler(type: HTTP2SessionHandler.self)
            let futures = (0..<count).map { index in
                let promise = channel.eventLoop.makePromise(of: HTTP2Response.self)
                var headers = HTTP2Headers()
                headers.add(name: "apns-topic", value: "com.example.app")
                headers.add(name: "apns-push-type", value: "alert")
                handler.submit(
                    HTTP2Request(
                        scheme: scheme, authority: authority, path: path(index), headers: headers,
                        body: ByteBuffer(string: body)),
                    deadline: .now() + .seconds(30), promise: promise)
                return promise.futureResult
            }
            handler.flush()
            return futures
        }.get()
        return try await EventLoopFuture.whenAllSucceed(futures, on: channel.eventLoop).get()
    }

    func close() async {
        try? await self.channel.close()
    }
}
