import NIOCore
import NIOHTTP1
import NIOPosix

/// Binds the admin HTTP/1.1 listener: plain text, loopback by default, for Prometheus scrapes,
/// `curl` and tests (routes in ``MockAdminHandler``).
enum MockAdminListener {
    static func bind(
        host: String, port: Int, server: MockAPNsServer, group: any EventLoopGroup
    ) async throws(MockAPNsError)
        -> any Channel
    {
        do {
            return try await ServerBootstrap(group: group)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                        try channel.pipeline.syncOperations.addHandler(MockAdminHandler(server: server))
                    }
                }
                .bind(host: host, port: port)
                .get()
        } catch {
            throw MockAPNsError(
                .bindFailed, "cannot listen for admin requests on \(host):\(port)", underlying: "\(error)")
        }
    }
}
