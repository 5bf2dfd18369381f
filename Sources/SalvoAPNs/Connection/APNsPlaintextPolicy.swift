import NIOCore

// On Linux, Clang assigns sockaddr_in's members (sin_addr, s_addr) to NIO's C shim module,
// whose header includes <netinet/in.h> first; MemberImportVisibility then asks for it.
#if canImport(CNIOLinux)
import CNIOLinux
#endif

/// Where cleartext HTTP/2 (h2c) may go: h2c carries the provider token (valid up to an hour),
/// payloads and device tokens in clear and authenticates no server, so by default only to this
/// machine (a mock beside the worker). Anything else needs an explicit opt-in
/// (``APNsConnection/Configuration/allowsRemotePlaintext``).
public enum APNsPlaintextPolicy {
    /// Whether `host` is a loopback address: an IPv4 literal in 127.0.0.0/8, `::1`, or the name
    /// `localhost` (which RFC 6761 reserves for loopback; the address connected to is checked again,
    /// see ``LoopbackPeerHandler``).
    public static func isLoopback(host: String) -> Bool {
        if APNsServerIdentity.normalized(host) == "localhost" { return true }
        let literal = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        guard let address = try? SocketAddress(ipAddress: literal, port: 0) else { return false }
        return isLoopback(address)
    }

    /// Whether `address` is 127.0.0.0/8 or ::1 (an IPv4-mapped 127.x address included).
    public static func isLoopback(_ address: SocketAddress) -> Bool {
        switch address {
        case .v4(let v4):
            return UInt32(bigEndian: v4.address.sin_addr.s_addr) >> 24 == 127
        case .v6(let v6):
            let bytes = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
            let mapped: [UInt8] = Array(repeating: 0, count: 10) + [0xFF, 0xFF]
            if Array(bytes.prefix(12)) == mapped { return bytes[12] == 127 }
            return bytes == Array(repeating: 0, count: 15) + [1]
        case .unixDomainSocket:
            return false
        }
    }

    /// The refusal for h2c to `host` without the opt-in.
    static func refusal(host: String) -> APNsError {
        APNsError(
            code: .invalidConfiguration,
            message:
                "cleartext HTTP/2 (h2c) to \(host) is refused: it is not a loopback address, and h2c would send the "
                + "provider token, payloads and device tokens unencrypted; use TLS, or allow plaintext explicitly")
    }

    /// First in an h2c pipeline: lets the connection go active only when the address actually
    /// connected to is a loopback address, so a `localhost` that resolves elsewhere is refused
    /// before the HTTP/2 preface (or anything after it) is sent.
    final class LoopbackPeerHandler: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = NIOAny

        func channelActive(context: ChannelHandlerContext) {
            guard let peer = context.remoteAddress, APNsPlaintextPolicy.isLoopback(peer) else {
                let peer = context.remoteAddress.map { "\($0)" } ?? "an unknown address"
                context.fireErrorCaught(APNsPlaintextPolicy.refusal(host: peer))
                context.close(promise: nil)
                return
            }
            context.fireChannelActive()
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
    }
}
