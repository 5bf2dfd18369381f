import NIOCore
import NIOSSL
import SwiftASN1
import X509

/// The identity a server certificate must prove when the connection names its server by DNS:
/// a DNS entry of its subjectAltName must match that name. IP entries match only IP-literal hosts.
///
/// Why on top of NIOSSL's check: NIOSSL accepts an IP-address entry equal to the peer's address
/// whatever name was asked for. Whoever can redirect DNS for the APNs host and holds a publicly
/// trusted certificate for their own IP address would then receive the team's provider token
/// (valid up to an hour), payloads and device tokens. NIOSSL still verifies the chain and its own
/// name rules first; this check can only refuse more. A certificate without DNS entries (a
/// common-name-only certificate) is refused too, as browsers have done since 2017.
struct APNsServerIdentity: Sendable {
    /// The DNS name asked for, lowercased, without a trailing dot.
    let dnsName: String

    /// The identity to check for `serverName` (the SNI name), or nil when there is none: an
    /// IP-literal host sends no SNI, and NIOSSL then matches the certificate's IP entries against
    /// the address connected to.
    init?(serverName: String?) {
        guard let serverName, (try? SocketAddress(ipAddress: serverName, port: 0)) == nil else { return nil }
        self.dnsName = Self.normalized(serverName)
    }

    /// Throws ``APNsError/Code/connectionFailed`` unless a DNS entry of `certificate` matches.
    func verify(_ certificate: NIOSSLCertificate) throws(APNsError) {
        let names: [String]
        do {
            let parsed = try Certificate(derEncoded: certificate.toDERBytes())
            let entries = try parsed.extensions.subjectAlternativeNames.map(Array.init) ?? []
            names = entries.compactMap { entry -> String? in
                guard case .dnsName(let dnsName) = entry else { return nil }
                return dnsName
            }
        } catch {
            throw APNsError(
                code: .connectionFailed, message: "the server certificate's subjectAltName cannot be read",
                underlying: String(describing: error))
        }
        guard names.contains(where: { Self.matches(pattern: $0, dnsName: self.dnsName) }) else {
            let listed = names.isEmpty ? "no DNS name" : "DNS names \(names.prefix(8).joined(separator: ", "))"
            throw APNsError(
                code: .connectionFailed,
                message: "the server certificate is not valid for \(self.dnsName): it lists \(listed); "
                    + "a DNS host must match a DNS entry of the certificate's subjectAltName (IP entries match only IP hosts)"
            )
        }
    }

    /// Whether the subjectAltName DNS entry `pattern` names `dnsName` (already normalized): equal
    /// ignoring ASCII case, or a wildcard `*.rest` standing for exactly one whole left-most label
    /// (RFC 6125 §6.4.3) of a name with at least two labels after it. Partial wildcards (`a*.x.com`)
    /// and wildcards anywhere else match nothing.
    static func matches(pattern: String, dnsName: String) -> Bool {
        let pattern = normalized(pattern)
        guard !pattern.isEmpty, !dnsName.isEmpty else { return false }
        guard pattern.hasPrefix("*.") else { return pattern == dnsName }
        let rest = pattern.dropFirst(2)
        guard !rest.contains("*"), rest.contains("."), let dot = dnsName.firstIndex(of: "."), dot != dnsName.startIndex
        else {
            return false
        }
        return dnsName[dnsName.index(after: dot)...] == rest
    }

    /// ASCII-lowercased, one trailing dot removed (`API.push.apple.com.` is `api.push.apple.com`).
    static func normalized(_ name: String) -> String {
        let lowered = String(decoding: name.utf8.map { (65...90).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
        return lowered.hasSuffix(".") ? String(lowered.dropLast()) : lowered
    }

    /// NIOSSL's hook run after its own verification and before the handshake completes, so nothing
    /// (not even the HTTP/2 preface) reaches a server that fails the check.
    func verificationCallback() -> _NIOAdditionalPeerCertificateVerificationCallback {
        { certificate, channel in
            do throws(APNsError) {
                try self.verify(certificate)
                return channel.eventLoop.makeSucceededVoidFuture()
            } catch {
                return channel.eventLoop.makeFailedFuture(error)
            }
        }
    }
}
