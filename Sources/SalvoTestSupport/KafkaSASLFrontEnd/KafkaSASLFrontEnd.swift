import NIOCore
import NIOPosix
import NIOSSL

/// A Kafka SASL listener in front of a broker that cannot authenticate anybody (Tansu), so
/// tests exercise librdkafka's real SASL (SCRAM-SHA-256, SCRAM-SHA-512, PLAIN) and TLS code.
///
/// Each client connection is held to what a Kafka SASL listener allows before authentication
/// (ApiVersions, passed to the broker; SaslHandshake; SaslAuthenticate) and is then relayed to
/// the broker untouched. Wrong credentials get `SASL_AUTHENTICATION_FAILED` and an unknown
/// mechanism `UNSUPPORTED_SASL_MECHANISM`, each followed by the close a broker does; any other
/// request before authentication closes the connection unanswered.
///
/// Listens on 127.0.0.1 at a free port. The broker advertises its own address in Metadata, so a
/// client reaches the front end only for its bootstrap connection unless the broker advertises
/// the front end's port: ``AuthenticatingTestBroker`` sets that up.
///
/// ApiVersions is relayed to the broker unchanged: its answer is what the client relies on after
/// authentication, and Tansu 0.6 already lists SaslHandshake v0–1 and SaslAuthenticate v0–2 in it
/// (KafkaSASLFrontEndProtocolTests checks that).
///
/// ```swift
/// let frontEnd = try await KafkaSASLFrontEnd.start(
///     upstream: "127.0.0.1:9092", mechanisms: [.scramSHA256], users: ["alice": "alice-secret"])
/// try await withCleanUp(frontEnd, cleanUp: { await $0.stop() }) { frontEnd in
///     // bootstrap.servers=\(frontEnd.address), security.protocol=SASL_PLAINTEXT, ...
/// }
/// ```
public final class KafkaSASLFrontEnd: Sendable {
    /// `127.0.0.1:port`, for `bootstrap.servers`.
    public let address: String
    public let port: Int
    /// The mechanisms offered, in the order the handshake answer lists them.
    public let mechanisms: [KafkaSASLMechanism]
    /// Whether clients must connect with TLS.
    public let usesTLS: Bool
    private let channel: any Channel
    private let shared: KafkaSASLFrontEndShared

    /// Starts listening.
    /// - Parameters:
    ///   - upstream: The broker's plain-TCP `host:port`; every authenticated connection gets its own.
    ///   - mechanisms: Offered mechanisms. Empty means no SASL: with `tls`, a TLS terminator
    ///     (librdkafka's `SSL`).
    ///   - users: User name → password, for every mechanism. SCRAM credentials are derived with
    ///     a random salt per run and 4096 iterations.
    ///   - tls: Present to require TLS on the client side (`SASL_SSL`, `SSL`).
    public static func start(
        upstream: String, mechanisms: [KafkaSASLMechanism], users: [String: String], tls: TLS? = nil
    ) async throws -> KafkaSASLFrontEnd {
        try await bind(
            upstream: KafkaSASLFrontEndShared.parse(address: upstream), mechanisms: mechanisms, users: users, tls: tls)
    }

    /// Like `start`, with the broker's address possibly unknown yet (see ``setUpstream(host:port:)``).
    static func bind(
        upstream: (host: String, port: Int)?, mechanisms: [KafkaSASLMechanism], users: [String: String], tls: TLS?
    ) async throws -> KafkaSASLFrontEnd {
        let shared = KafkaSASLFrontEndShared(
            accounts: KafkaSASLAccounts(mechanisms: mechanisms, users: users), upstream: upstream)
        let sslContext = try tls?.makeContext()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                shared.register(channel)
                return channel.eventLoop.makeCompletedFuture {
                    if let sslContext {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: sslContext))
                    }
                    try channel.pipeline.syncOperations.addHandler(KafkaSASLFrontEndConnection(shared: shared))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        guard let port = channel.localAddress?.port else {
            try? await channel.close()
            throw TestFailure("the Kafka SASL front end has no local port")
        }
        return KafkaSASLFrontEnd(channel: channel, port: port, shared: shared, usesTLS: tls != nil)
    }

    private init(channel: any Channel, port: Int, shared: KafkaSASLFrontEndShared, usesTLS: Bool) {
        self.channel = channel
        self.port = port
        self.address = "127.0.0.1:\(port)"
        self.shared = shared
        self.mechanisms = shared.accounts.mechanisms
        self.usesTLS = usesTLS
    }

    /// Counters since start.
    public var statistics: Statistics { shared.snapshot }

    /// Where connections accepted from now on are relayed to.
    func setUpstream(host: String, port: Int) {
        shared.upstream = (host, port)
    }

    /// Stops listening and closes every open connection, client and broker side.
    public func stop() async {
        try? await channel.close()
        for open in shared.openChannels {
            try? await open.close()
        }
    }
}
