import NIOCore
import NIOPosix
import NIOSSL
import SalvoHTTP2

/// Binds the channel-management listener (`--broadcast-listen`): the APNs listener's transport
/// (TLS with the same certificate and client CA, or h2c), an HTTP/2 session, then
/// ``MockChannelManagementHandler``. Apple serves this API on its own hosts and ports
/// (`api-manage-broadcast…:2196`/`:2195`), hence a listener of its own.
enum MockChannelManagementListener {
    static func bind(
        host: String, port: Int, runtime: MockAPNsRuntime, sslContext: NIOSSLContext?, group: any EventLoopGroup
    ) async throws(MockAPNsError) -> any Channel {
        do {
            return try await ServerBootstrap(group: group)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let pipeline = channel.pipeline.syncOperations
                        if let sslContext { try pipeline.addHandler(NIOSSLServerHandler(context: sslContext)) }
                        var http2 = runtime.configuration.http2
                        http2.maxConcurrentStreams = runtime.configuration.scenario.maxConcurrentStreams
                        let session = HTTP2SessionHandler(mode: .server, configuration: http2)
                        try pipeline.addHandler(session)
                        try pipeline.addHandler(MockChannelManagementHandler(runtime: runtime, session: session))
                        runtime.registry.add(channel)
                    }
                }
                .bind(host: host, port: port)
                .get()
        } catch {
            throw MockAPNsError(
                .bindFailed, "cannot listen for channel management on \(host):\(port)", underlying: "\(error)")
        }
    }
}
