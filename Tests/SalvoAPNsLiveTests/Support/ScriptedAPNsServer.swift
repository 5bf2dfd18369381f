import Crypto
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import SalvoHTTP2
import Synchronization

/// A small APNs-like server on SalvoHTTP2's server mode, for the faults nghttpd cannot play:
/// JWT verification, GOAWAY mid-run, socket close, lowered SETTINGS, silence. Listens on 127.0.0.1
/// port 0; the test stops it with `close()` in `defer`.
final class ScriptedAPNsServer: Sendable {
    enum Fault: Sendable, Equatable {
        /// GOAWAY whose last stream id is the triggering request's: later streams are not processed.
        case goAway
        /// Close the socket without answering the triggering request.
        case closeConnection
        /// Advertise a new SETTINGS_MAX_CONCURRENT_STREAMS.
        case lowerMaxConcurrentStreams(to: Int)
    }

    struct Script: Sendable {
        /// Verify `authorization: bearer <ES256 JWT>` against this key (raw P-256 public key),
        /// `kid` and `iss`; nil accepts requests without checking.
        var tokenKey: (publicKey: [UInt8], keyID: String, teamID: String)?
        /// Tokens (hex) whose requests are never answered.
        var silentTokens: Set<String> = []
        /// The fault, played once, on the connection receiving request number `faultAfter`.
        var fault: Fault?
        var faultAfter = 0
    }

    struct Stats: Sendable {
        var requests = 0
        var answered = 0
        var connections = 0
        /// Requests above a GOAWAY's last stream id: delivered by nghttp2, never processed.
        var ignoredAboveGoAway = 0
        var distinctJWTs: Set<String> = []
        /// Most streams open on a connection when a request arrived after its lowered SETTINGS
        /// were acknowledged and the streams opened before drained.
        var maxOpenStreamsAfterLowering = 0
        /// Requests counted in `maxOpenStreamsAfterLowering`.
        var requestsAfterLowering = 0
        /// Requests answered per connection, in accept order.
        var answeredPerConnection: [Int] = []
    }

    let script: Script
    private let stats = Mutex(Stats())
    private let channel = Mutex<(any Channel)?>(nil)

    init(script: Script) {
        self.script = script
    }

    var port: Int { self.channel.withLock { $0?.localAddress?.port ?? 0 } }
    var snapshot: Stats { self.stats.withLock { $0 } }

    func start(group: any EventLoopGroup, tls: NIOSSLContext?) async throws {
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    if let tls { try sync.addHandler(NIOSSLServerHandler(context: tls)) }
                    let session = HTTP2SessionHandler(mode: .server)
                    try sync.addHandler(session)
                    let number = self.stats.withLock { stats in
                        stats.connections += 1
                        stats.answeredPerConnection.append(0)
                        return stats.connections - 1
                    }
                    try sync.addHandler(ScriptedAPNsHandler(server: self, session: session, connection: number))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        self.channel.withLock { $0 = channel }
    }

    func close() async {
        let channel = self.channel.withLock { $0 }
        try? await channel?.close()
    }

    // MARK: Called by the per-connection handler

    /// Counts a request; returns its number (1-based) and whether it triggers the fault.
    func received() -> (number: Int, triggersFault: Bool) {
        let number = self.stats.withLock { stats in
            stats.requests += 1
            return stats.requests
        }
        return (number, self.script.fault != nil && number == self.script.faultAfter)
    }

    func record(_ update: (inout Stats) -> Void) {
        self.stats.withLock { update(&$0) }
    }

    /// nil when the token is acceptable, else the reason APNs would give.
    func rejectionReason(authorization: String?) -> String? {
        guard let key = self.script.tokenKey else { return nil }
        guard let authorization, authorization.hasPrefix("bearer ") else { return "MissingProviderToken" }
        let jwt = String(authorization.dropFirst("bearer ".count))
        self.record { $0.distinctJWTs.insert(jwt) }
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3,
            let header = Self.base64URLDecode(parts[0]).map({ String(decoding: $0, as: UTF8.self) }),
            let claims = Self.base64URLDecode(parts[1]).map({ String(decoding: $0, as: UTF8.self) }),
            let signatureBytes = Self.base64URLDecode(parts[2]),
            let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureBytes),
            let publicKey = try? P256.Signing.PublicKey(rawRepresentation: key.publicKey)
        else { return "InvalidProviderToken" }
        guard publicKey.isValidSignature(signature, for: Data("\(parts[0]).\(parts[1])".utf8)),
            header.contains("\"alg\":\"ES256\""), header.contains("\"kid\":\"\(key.keyID)\""),
            claims.contains("\"iss\":\"\(key.teamID)\""), claims.contains("\"iat\":")
        else { return "InvalidProviderToken" }
        return nil
    }

    private static func base64URLDecode(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}
