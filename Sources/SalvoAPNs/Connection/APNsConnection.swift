import Logging
import NIOCore

/// One HTTP/2 connection to APNs, for sending a few notifications directly (`salvo send`, checking
/// a credential). Production traffic goes through ``APNsConnectionPool``, which owns several of
/// these, routes by free stream credit, replays what was not sent and replaces connections.
///
/// A connection is ready once the TLS handshake (ALPN `h2`) is done and the server's first
/// SETTINGS arrived. It sends a PING after ``Configuration/keepaliveInterval`` without traffic and
/// closes if the ACK does not come. After a GOAWAY it takes no new requests; those in flight
/// finish and those above the GOAWAY's last stream id fail as ``APNsError/Code/notSent``.
public final class APNsConnection: Sendable {
    public let id: APNsConnectionID
    public let environment: APNsEnvironment
    public let eventLoop: any EventLoop
    private let channel: any Channel
    private let handler: NIOLoopBound<APNsConnectionHandler>
    private let requestTimeout: TimeAmount

    private init(
        handler: APNsConnectionHandler, channel: any Channel, environment: APNsEnvironment, requestTimeout: TimeAmount
    ) {
        self.id = handler.id
        self.environment = environment
        self.eventLoop = channel.eventLoop
        self.channel = channel
        self.handler = NIOLoopBound(handler, eventLoop: channel.eventLoop)
        self.requestTimeout = requestTimeout
    }

    /// Connects with a certificate credential, or a token credential whose provider is made for
    /// this connection alone (connections of one key should share a provider: use
    /// ``connect(to:credential:tokenProvider:configuration:eventLoop:logger:)``).
    public static func connect(
        to environment: APNsEnvironment,
        credential: APNsCredential,
        configuration: Configuration = Configuration(),
        eventLoop: any EventLoop,
        logger: Logger = Logger(label: "salvo.apns")
    ) async throws(APNsError) -> APNsConnection {
        var source: APNsAuthorizationSource?
        if case .token(let tokenCredential) = credential {
            source = APNsAuthorizationSource(provider: try APNsTokenProvider(credential: tokenCredential))
        }
        return try await self.connect(environment, credential, source, configuration, eventLoop, logger)
    }

    /// Connects with token authentication through a shared provider.
    public static func connect<C: Clock>(
        to environment: APNsEnvironment,
        credential: APNsTokenCredential,
        tokenProvider: APNsTokenProvider<C>,
        configuration: Configuration = Configuration(),
        eventLoop: any EventLoop,
        logger: Logger = Logger(label: "salvo.apns")
    ) async throws(APNsError) -> APNsConnection where C.Duration == Duration {
        let source = APNsAuthorizationSource(provider: tokenProvider)
        return try await self.connect(environment, .token(credential), source, configuration, eventLoop, logger)
    }

    private static func connect(
        _ environment: APNsEnvironment,
        _ credential: APNsCredential,
        _ source: APNsAuthorizationSource?,
        _ configuration: Configuration,
        _ eventLoop: any EventLoop,
        _ logger: Logger
    ) async throws(APNsError) -> APNsConnection {
        let factory = try APNsConnectionFactory(
            environment: environment, credential: credential, configuration: configuration, eventLoop: eventLoop,
            authorizationSource: source, metrics: nil, logger: logger)
        let requestTimeout = TimeAmount(configuration.requestTimeout)
        let result = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<APNsConnection, APNsError>, Never>) in
            eventLoop.execute {
                factory.connect(id: .next(), delegate: nil) { result in
                    continuation.resume(
                        returning: result.map { handler in
                            // A ready handler is in a pipeline, so it has a channel.
                            APNsConnection(
                                handler: handler, channel: handler.channel!, environment: environment,
                                requestTimeout: requestTimeout)
                        })
                }
            }
        }
        return try result.get()
    }

    /// Sends one notification and returns APNs's answer, accepted or not.
    /// - Throws: ``APNsError/Code/notSent`` (refused stream, GOAWAY, connection not ready),
    ///   ``APNsError/Code/timedOut``, ``APNsError/Code/connectionLost``, or a token signing failure.
    public func send(_ request: APNsRequest) async throws(APNsError) -> APNsResponse {
        let handler = self.handler
        let timeout = self.requestTimeout
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<APNsConnectionResult, Never>) in
            self.eventLoop.execute {
                handler.value.submit(request, deadline: handler.eventLoop.now + timeout) {
                    continuation.resume(returning: $0)
                }
            }
        }
        switch result {
        case .response(let response), .expiredProviderToken(let response, _): return response
        case .failed(let error): throw error
        }
    }

    /// Sends GOAWAY and returns once the requests in flight ended and the connection closed.
    public func close() async {
        let handler = self.handler
        self.eventLoop.execute { handler.value.retire() }
        try? await self.channel.closeFuture.get()
    }
}
