import Foundation

/// The server side of one SCRAM exchange (RFC 5802 section 5, with RFC 7677's SHA-256 and
/// Kafka's SHA-512): client-first → server-first, client-final → server-final. No channel
/// binding, as Kafka's SCRAM has none; the GS2 header must say `n` or `y`.
///
/// Inputs are the raw SASL tokens, outputs the tokens to send back. The server nonce is a
/// parameter so the RFC's test vector can be replayed exactly.
struct SCRAMServerExchange: Sendable {
    /// What the server does after a client message.
    enum Step: Equatable, Sendable {
        /// Send this token and wait for the next client message.
        case challenge([UInt8])
        /// The proof was right: send the server-final message; `user` is authenticated.
        case succeeded(user: String, serverFinal: [UInt8])
        /// Wrong user, wrong proof or a malformed message. `message` is the text a Kafka broker
        /// sends back (`nil`: its generic "invalid credentials" text); `reason` is for logs only.
        case failed(reason: String, message: String? = nil)
    }

    private enum State: Sendable {
        case awaitingClientFirst
        case awaitingClientFinal(Pending)
        case finished
    }

    /// What the server remembers between its first message and the client's final one.
    private struct Pending: Sendable {
        var user: String
        var credential: SCRAMCredential
        var gs2Header: String
        var nonce: String
        var clientFirstBare: String
        var serverFirst: String
    }

    private let hash: SCRAMHash
    private let credentials: [String: SCRAMCredential]
    private let serverNonce: String
    private var state = State.awaitingClientFirst

    init(hash: SCRAMHash, credentials: [String: SCRAMCredential], serverNonce: String = Self.randomNonce()) {
        self.hash = hash
        self.credentials = credentials
        self.serverNonce = serverNonce
    }

    /// 18 random bytes in base64: printable and free of commas, as the nonce must be.
    static func randomNonce() -> String {
        Data((0..<18).map { _ in UInt8.random(in: .min ... .max) }).base64EncodedString()
    }

    mutating func receive(_ token: [UInt8]) -> Step {
        let message = String(decoding: token, as: UTF8.self)
        switch state {
        case .awaitingClientFirst:
            return receiveClientFirst(message)
        case .awaitingClientFinal(let pending):
            state = .finished
            return receiveClientFinal(message, pending)
        case .finished:
            return .failed(reason: "a message after the exchange ended")
        }
    }

    private mutating func receiveClientFirst(_ message: String) -> Step {
        state = .finished
        // gs2-header = gs2-cbind-flag "," [ authzid ] "," ; then client-first-message-bare.
        let parts = message.split(separator: ",", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "n" || parts[0] == "y" else {
            return .failed(reason: "unsupported GS2 header in \(message.debugDescription)")
        }
        let bare = String(parts[2])
        let attributes = Self.attributes(bare)
        guard let encodedUser = attributes.first(where: { $0.key == "n" })?.value,
            let clientNonce = attributes.first(where: { $0.key == "r" })?.value, !clientNonce.isEmpty,
            !attributes.contains(where: { $0.key == "m" })
        else { return .failed(reason: "malformed client-first message \(message.debugDescription)") }
        let user = Self.decodeSASLName(encodedUser)
        if parts[1].hasPrefix("a="), Self.decodeSASLName(String(parts[1].dropFirst(2))) != user {
            return .failed(reason: "authorization id differs from user \(user)")
        }
        guard let credential = credentials[user] else {
            return .failed(reason: "unknown user \(user)", message: "Authentication failed: Invalid user credentials")
        }
        let nonce = clientNonce + serverNonce
        let serverFirst = "r=\(nonce),s=\(Data(credential.salt).base64EncodedString()),i=\(credential.iterations)"
        state = .awaitingClientFinal(
            Pending(
                user: user, credential: credential, gs2Header: "\(parts[0]),\(parts[1]),", nonce: nonce,
                clientFirstBare: bare, serverFirst: serverFirst))
        return .challenge(Array(serverFirst.utf8))
    }

    private func receiveClientFinal(_ message: String, _ pending: Pending) -> Step {
        // client-final-message = channel-binding "," nonce ["," extensions] "," proof
        guard let proofRange = message.range(of: ",p=", options: .backwards) else {
            return .failed(reason: "client-final message without proof")
        }
        let withoutProof = String(message[..<proofRange.lowerBound])
        let attributes = Self.attributes(withoutProof)
        guard attributes.first(where: { $0.key == "c" })?.value == Data(pending.gs2Header.utf8).base64EncodedString()
        else { return .failed(reason: "channel binding does not repeat the GS2 header") }
        guard attributes.first(where: { $0.key == "r" })?.value == pending.nonce else {
            return .failed(reason: "nonce differs from the server's")
        }
        guard let proof = Data(base64Encoded: String(message[proofRange.upperBound...])).map(Array.init),
            proof.count == pending.credential.storedKey.count
        else { return .failed(reason: "malformed proof") }

        let authMessage = Array("\(pending.clientFirstBare),\(pending.serverFirst),\(withoutProof)".utf8)
        let clientSignature = hash.hmac(key: pending.credential.storedKey, authMessage)
        let clientKey = zip(proof, clientSignature).map { $0 ^ $1 }
        guard Self.constantTimeEqual(hash.hash(clientKey), pending.credential.storedKey) else {
            return .failed(reason: "wrong proof for user \(pending.user)")
        }
        let serverSignature = hash.hmac(key: pending.credential.serverKey, authMessage)
        return .succeeded(
            user: pending.user, serverFinal: Array("v=\(Data(serverSignature).base64EncodedString())".utf8))
    }

    /// `k=v` pairs of a SCRAM message in order (values may contain `=`, never `,`).
    private static func attributes(_ message: String) -> [(key: Substring, value: String)] {
        message.split(separator: ",").compactMap { attribute in
            guard let equals = attribute.firstIndex(of: "="),
                attribute.distance(from: attribute.startIndex, to: equals) == 1
            else { return nil }
            return (attribute[..<equals], String(attribute[attribute.index(after: equals)...]))
        }
    }

    /// saslname: `=2C` stands for `,` and `=3D` for `=`.
    private static func decodeSASLName(_ name: String) -> String {
        name.replacingOccurrences(of: "=2C", with: ",").replacingOccurrences(of: "=3D", with: "=")
    }

    /// Compares without stopping at the first difference, so the time taken says nothing about
    /// how much of a forged proof was right.
    static func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return zip(lhs, rhs).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
