import Logging
import NIOCore
import NIOPosix
import NIOSSL
import SalvoHTTP2

/// Opens real connections: TCP with TCP_NODELAY, NIOSSL (TLS 1.2+, ALPN `h2`, verification on,
/// SNI, a DNS host matched by a DNS entry of the certificate: ``APNsServerIdentity``) or h2c (to
/// loopback addresses only, unless allowed: ``APNsPlaintextPolicy``), then `HTTP2SessionHandler`
/// in client mode, then ``APNsConnectionHandler``.
///
/// The TLS context is built once here and shared by every connection (building one loads the
/// trust roots and the client certificate).
struct APNsConnectionFactory: APNsPoolConnectionFactory {
    let environment: APNsEnvironment
    let configuration: APNsConnection.Configuration
    let eventLoop: any EventLoop
    private let sslContext: NIOSSLContext?
    private let serverHostname: String?
    private let serverIdentity: APNsServerIdentity?
    /// Whether an h2c connection checks that the address it reached is a loopback address.
    private let requiresLoopbackPeer: Bool
    private let encoder: APNsRequestEncoder
    private let authorizationSource: APNsAuthorizationSource?
    private let metrics: APNsPoolMetrics?
    private let logger: Logger

    init(
        environment: APNsEnvironment,
        credential: APNsCredential,
        configuration: APNsConnection.Configuration,
        eventLoop: any EventLoop,
        authorizationSource: APNsAuthorizationSource?,
        metrics: APNsPoolMetrics?,
        logger: Logger
    ) throws(APNsError) {
        try configuration.validate()
        switch (configuration.transport, credential) {
        case (.tls(let trustRoots), _):
            do {
                self.sslContext = try NIOSSLContext(
                    configuration: credential.makeTLSConfiguration(trustRoots: trustRoots))
            } catch {
                throw APNsError(
                    code: .invalidCredential,
                    message: "cannot build a TLS context for \(credential)",
                    underlying: String(describing: error)
                )
            }
        case (.plaintext, .certificate):
            throw APNsError(code: .invalidConfiguration, message: "certificate credentials need the TLS transport")
        case (.plaintext, .token):
            guard configuration.allowsRemotePlaintext || APNsPlaintextPolicy.isLoopback(host: environment.host) else {
                throw APNsPlaintextPolicy.refusal(host: environment.host)
            }
            self.sslContext = nil
        }
        self.requiresLoopbackPeer = self.sslContext == nil && !configuration.allowsRemotePlaintext
        if case .token = credential, authorizationSource == nil {
            throw APNsError(code: .invalidConfiguration, message: "token credentials need a token provider")
        }
        let host = environment.host
        let isIPAddress = (try? SocketAddress(ipAddress: host, port: 0)) != nil
        self.serverHostname = configuration.tlsServerName ?? (isIPAddress ? nil : host)
        self.serverIdentity = APNsServerIdentity(serverName: self.serverHostname)
        let defaultPort = self.sslContext == nil ? 80 : 443
        let authority = environment.port == defaultPort ? host : "\(host):\(environment.port)"
        self.encoder = APNsRequestEncoder(authority: authority, scheme: self.sslContext == nil ? "http" : "https")
        self.environment = environment
        self.configuration = configuration
        self.eventLoop = eventLoop
        self.authorizationSource = authorizationSource
        self.metrics = metrics
        self.logger = logger
    }

    func makeConnection(
        id: APNsConnectionID,
        delegate: any APNsPoolConnectionDelegate,
        completion: @escaping (Result<any APNsPoolConnection, APNsError>) -> Void
    ) {
        self.connect(id: id, delegate: delegate) { result in completion(result.map { $0 }) }
    }

    /// Starts connecting on `eventLoop` (call it there); `completion` runs there once.
    func connect(
        id: APNsConnectionID,
        delegate: (any APNsPoolConnectionDelegate)?,
        completion: @escaping (Result<APNsConnectionHandler, APNsError>) -> Void
    ) {
        self.eventLoop.preconditionInEventLoop()
        let session = HTTP2SessionHandler(mode: .client, configuration: self.configuration.http2)
        let handler = APNsConnectionHandler(
            id: id,
            session: session,
            encoder: self.encoder,
            authorizationSource: self.authorizationSource,
            configuration: self.configuration,
            metrics: self.metrics,
            readsUniqueID: self.environment.kind == .sandbox,
            logger: self.logger,
            onSetup: completion
        )
        handler.delegate = delegate
        session.responseDelegate = handler.responseRelay
        // The bootstrap's group is this event loop, so the initializer runs here too.
        let handlers = NIOLoopBound((session, handler), eventLoop: self.eventLoop)
        let sslContext = self.sslContext
        let serverHostname = self.serverHostname
        let serverIdentity = self.serverIdentity
        let requiresLoopbackPeer = self.requiresLoopbackPeer
        ClientBootstrap(group: self.eventLoop)
            .connectTimeout(TimeAmount(self.configuration.connectTimeout))
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let (session, handler) = handlers.value
                    let pipeline = channel.pipeline.syncOperations
                    if let sslContext, let serverIdentity {
                        try pipeline.addHandler(
                            NIOSSLClientHandler._makeSSLClientHandler(
                                context: sslContext, serverHostname: serverHostname,
                                additionalPeerCertificateVerificationCallback: serverIdentity.verificationCallback()))
                    } else if let sslContext {
                        try pipeline.addHandler(
                            NIOSSLClientHandler(context: sslContext, serverHostname: serverHostname))
                    } else if requiresLoopbackPeer {
                        try pipeline.addHandler(APNsPlaintextPolicy.LoopbackPeerHandler())
                    }
                    try pipeline.addHandler(session)
                    try pipeline.addHandler(handler)
                }
            }
            .connect(host: self.environment.host, port: self.environment.port)
            .whenFailure { error in
                handlers.value.1.connectFailed(error)
            }
    }
}
