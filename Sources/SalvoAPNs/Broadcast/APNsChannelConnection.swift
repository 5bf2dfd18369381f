import NIOCore
import NIOPosix
import NIOSSL
import SalvoHTTP2

/// One HTTP/2 connection for channel management or broadcasts: TCP, TLS (or h2c to loopback, as
/// ``APNsConnectionFactory`` allows), an `HTTP2SessionHandler` in client mode. Requests are
/// submitted with a promise; nghttp2 queues those beyond the server's MAX_CONCURRENT_STREAMS
/// (APNs's one-stream start on token connections included) and sends them as streams free up.
///
/// These endpoints carry a few requests a second, so this is the simple path, not the tuned one
/// device pushes take through ``APNsConnectionPool``.
final class APNsChannelConnection: Sendable {
    let id: APNsConnectionID
    let channel: any Channel
    private let session: NIOLoopBound<HTTP2SessionHandler>

    private init(id: APNsConnectionID, channel: any Channel, session: NIOLoopBound<HTTP2SessionHandler>) {
        self.id = id
        self.channel = channel
        self.session = session
    }

    /// Whether requests can still go out on it.
    var isActive: Bool { self.channel.isActive }

    /// The TLS side of a connection to `endpoint`, as the device-push pools set it up.
    struct Transport: Sendable {
        var sslContext: NIOSSLContext?
        var serverHostname: String?
        var serverIdentity: APNsServerIdentity?
        var requiresLoopbackPeer: Bool
        var authority: String
        var scheme: String
    }

    static func transport(
        for credential: APNsCredential, endpoint: APNsEnvironment, configuration: APNsConnection.Configuration
    ) throws(APNsError) -> Transport {
        let sslContext: NIOSSLContext?
        switch (configuration.transport, credential) {
        case (.tls(let trustRoots), _):
            do {
                sslContext = try NIOSSLContext(configuration: credential.makeTLSConfiguration(trustRoots: trustRoots))
            } catch {
                throw APNsError(
                    code: .invalidCredential, message: "cannot build a TLS context for \(credential)",
                    underlying: "\(error)")
            }
        case (.plaintext, .certificate):
            throw APNsError(code: .invalidConfiguration, message: "certificate credentials need the TLS transport")
        case (.plaintext, .token):
            guard configuration.allowsRemotePlaintext || APNsPlaintextPolicy.isLoopback(host: endpoint.host) else {
                throw APNsPlaintextPolicy.refusal(host: endpoint.host)
            }
            sslContext = nil
        }
        let isIPAddress = (try? SocketAddress(ipAddress: endpoint.host, port: 0)) != nil
        let serverHostname = configuration.tlsServerName ?? (isIPAddress ? nil : endpoint.host)
        let defaultPort = sslContext == nil ? 80 : 443
        return Transport(
            sslContext: sslContext, serverHostname: serverHostname,
            serverIdentity: APNsServerIdentity(serverName: serverHostname),
            requiresLoopbackPeer: sslContext == nil && !configuration.allowsRemotePlaintext,
            authority: endpoint.port == defaultPort ? endpoint.host : "\(endpoint.host):\(endpoint.port)",
            scheme: sslContext == nil ? "http" : "https")
    }

    static func connect(
        to endpoint: APNsEnvironment, transport: Transport, configuration: APNsConnection.Configuration,
        eventLoop: any EventLoop
    ) -> EventLoopFuture<APNsChannelConnection> {
        var http2 = configuration.http2
        http2.keptResponseHeaders = ["apns-request-id", "apns-channel-id", "apns-unique-id", "content-type"]
        let sessionConfiguration = http2
        return ClientBootstrap(group: eventLoop)
            .connectTimeout(TimeAmount(configuration.connectTimeout))
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    if let sslContext = transport.sslContext, let identity = transport.serverIdentity {
                        try pipeline.addHandler(
                            NIOSSLClientHandler._makeSSLClientHandler(
                                context: sslContext, serverHostname: transport.serverHostname,
                                additionalPeerCertificateVerificationCallback: identity.verificationCallback()))
                    } else if let sslContext = transport.sslContext {
                        try pipeline.addHandler(
                            NIOSSLClientHandler(context: sslContext, serverHostname: transport.serverHostname))
                    } else if transport.requiresLoopbackPeer {
                        try pipeline.addHandler(APNsPlaintextPolicy.LoopbackPeerHandler())
                    }
                    try pipeline.addHandler(HTTP2SessionHandler(mode: .client, configuration: sessionConfiguration))
                }
            }
            .connect(host: endpoint.host, port: endpoint.port)
            .flatMapThrowing { channel in
                let session = try channel.pipeline.syncOperations.handler(type: HTTP2SessionHandler.self)
                return APNsChannelConnection(
                    id: .next(), channel: channel, session: NIOLoopBound(session, eventLoop: channel.eventLoop))
            }
    }

    /// Sends one request; the future fails with the HTTP/2 layer's error.
    func send(_ request: HTTP2Request, timeout: TimeAmount) -> EventLoopFuture<HTTP2Response> {
        let loop = self.channel.eventLoop
        let promise = loop.makePromise(of: HTTP2Response.self)
        loop.execute {
            self.session.value.submit(request, deadline: .now() + timeout, promise: promise)
            self.session.value.flush()
        }
        return promise.futureResult
    }

    func close() -> EventLoopFuture<Void> {
        self.channel.close()
    }
}
