import Foundation
import Testing

@testable import SalvoTestSupport

/// The front end's SCRAM and PLAIN servers on their own: RFC 7677's published exchange, then
/// what a broker must refuse.
@Suite struct KafkaSASLFrontEndSCRAMTests {
    static let rfcClientNonce = "rOprNGfwEbeRWgbNEkqO"
    static let rfcServerNonce = "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0"
    static let rfcSalt = "W22ZaJ0SNY7soEsUEjb6gQ=="

    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// RFC 7677 section 3: user "user", password "pencil", 4096 iterations.
    static func rfcExchange() throws -> SCRAMServerExchange {
        let salt = try #require(Data(base64Encoded: rfcSalt))
        let credential = SCRAMCredential(password: "pencil", salt: Array(salt), iterations: 4096, hash: .sha256)
        return SCRAMServerExchange(hash: .sha256, credentials: ["user": credential], serverNonce: rfcServerNonce)
    }

    @Test func rfc7677TestVectorGivesTheServerMessagesOfTheRFC() throws {
        var exchange = try Self.rfcExchange()
        let nonce = Self.rfcClientNonce + Self.rfcServerNonce
        #expect(
            exchange.receive(Self.bytes("n,,n=user,r=\(Self.rfcClientNonce)"))
                == .challenge(Self.bytes("r=\(nonce),s=\(Self.rfcSalt),i=4096")))
        let clientFinal = "c=biws,r=\(nonce),p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="
        #expect(
            exchange.receive(Self.bytes(clientFinal))
                == .succeeded(user: "user", serverFinal: Self.bytes("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=")))
    }

    @Test func aProofFromAnotherPasswordFails() throws {
        var exchange = try Self.rfcExchange()
        let nonce = Self.rfcClientNonce + Self.rfcServerNonce
        _ = exchange.receive(Self.bytes("n,,n=user,r=\(Self.rfcClientNonce)"))
        let proof = SCRAMTestClient.proof(
            hash: .sha256, password: "not-pencil", salt: Array(try #require(Data(base64Encoded: Self.rfcSalt))),
            authMessage: "n=user,r=\(Self.rfcClientNonce),r=\(nonce),s=\(Self.rfcSalt),i=4096,c=biws,r=\(nonce)")
        let step = exchange.receive(Self.bytes("c=biws,r=\(nonce),p=\(proof)"))
        #expect(step == .failed(reason: "wrong proof for user user"))
    }

    @Test func unknownUserChannelBindingAndForeignNonceFail() throws {
        var unknown = try Self.rfcExchange()
        #expect(
            unknown.receive(Self.bytes("n,,n=mallory,r=abc"))
                == .failed(reason: "unknown user mallory", message: "Authentication failed: Invalid user credentials"))

        var binding = try Self.rfcExchange()
        guard case .failed = binding.receive(Self.bytes("p=tls-unique,,n=user,r=abc")) else {
            Issue.record("channel binding must be refused")
            return
        }

        var nonce = try Self.rfcExchange()
        _ = nonce.receive(Self.bytes("n,,n=user,r=\(Self.rfcClientNonce)"))
        let step = nonce.receive(Self.bytes("c=biws,r=\(Self.rfcClientNonce)other,p=AAAA"))
        #expect(step == .failed(reason: "nonce differs from the server's"))
        #expect(nonce.receive(Self.bytes("c=biws")) == .failed(reason: "a message after the exchange ended"))
    }

    /// SHA-512 against an independent client computation (the RFC has no SHA-512 vector),
    /// with an authorization id and a random salt and nonce as the front end uses them.
    @Test func scramSHA512RoundTripWithAuthorizationID() throws {
        let credential = SCRAMCredential.random(password: "alice-secret", hash: .sha512)
        var exchange = SCRAMServerExchange(hash: .sha512, credentials: ["alice": credential])
        let clientFirstBare = "n=alice,r=client-nonce"
        guard case .challenge(let challenge) = exchange.receive(Self.bytes("n,a=alice,\(clientFirstBare)")) else {
            Issue.record("no server-first message")
            return
        }
        let serverFirst = String(decoding: challenge, as: UTF8.self)
        let fields = Dictionary(
            uniqueKeysWithValues: serverFirst.split(separator: ",").map { ($0.prefix(1), String($0.dropFirst(2))) })
        let nonce = try #require(fields["r"])
        #expect(nonce.hasPrefix("client-nonce") && nonce.count > "client-nonce".count)
        #expect(fields["i"] == "4096")
        let encodedSalt = try #require(fields["s"])
        let salt = Array(try #require(Data(base64Encoded: encodedSalt)))
        #expect(salt == credential.salt)

        let channelBinding = Data("n,a=alice,".utf8).base64EncodedString()
        let withoutProof = "c=\(channelBinding),r=\(nonce)"
        let authMessage = "\(clientFirstBare),\(serverFirst),\(withoutProof)"
        let proof = SCRAMTestClient.proof(hash: .sha512, password: "alice-secret", salt: salt, authMessage: authMessage)
        let expectedSignature = SCRAMTestClient.serverSignature(
            hash: .sha512, password: "alice-secret", salt: salt, authMessage: authMessage)
        #expect(
            exchange.receive(Self.bytes("\(withoutProof),p=\(proof)"))
                == .succeeded(user: "alice", serverFinal: Self.bytes("v=\(expectedSignature)")))
    }

    @Test func plainChecksUserPasswordAndAuthorizationID() {
        let passwords = ["alice": "alice-secret"]
        func token(_ parts: String...) -> [UInt8] { Array(parts.joined(separator: "\0").utf8) }
        #expect(
            PlainServerExchange.authenticate(token("", "alice", "alice-secret"), passwords: passwords)
                == .success("alice"))
        #expect(
            PlainServerExchange.authenticate(token("alice", "alice", "alice-secret"), passwords: passwords)
                == .success("alice"))
        #expect(
            PlainServerExchange.authenticate(token("", "alice", "wrong"), passwords: passwords)
                == .failure(.init(reason: "wrong user or password for alice")))
        #expect(
            PlainServerExchange.authenticate(token("bob", "alice", "alice-secret"), passwords: passwords)
                == .failure(.init(reason: "authorization id differs from user alice")))
        #expect(
            PlainServerExchange.authenticate(token("alice", "alice-secret"), passwords: passwords)
                == .failure(.init(reason: "malformed PLAIN message")))
    }
}

/// The client's side of RFC 5802 section 3, written out step by step from the RFC's formulas.
enum SCRAMTestClient {
    static func saltedPassword(hash: SCRAMHash, password: String, salt: [UInt8]) -> [UInt8] {
        hash.hi(password: Array(password.utf8), salt: salt, iterations: 4096)
    }

    /// ClientProof = ClientKey XOR HMAC(H(ClientKey), AuthMessage), in base64.
    static func proof(hash: SCRAMHash, password: String, salt: [UInt8], authMessage: String) -> String {
        let clientKey = hash.hmac(
            key: saltedPassword(hash: hash, password: password, salt: salt), Array("Client Key".utf8))
        let signature = hash.hmac(key: hash.hash(clientKey), Array(authMessage.utf8))
        return Data(zip(clientKey, signature).map { $0 ^ $1 }).base64EncodedString()
    }

    /// ServerSignature = HMAC(HMAC(SaltedPassword, "Server Key"), AuthMessage), in base64.
    static func serverSignature(hash: SCRAMHash, password: String, salt: [UInt8], authMessage: String) -> String {
        let serverKey = hash.hmac(
            key: saltedPassword(hash: hash, password: password, salt: salt), Array("Server Key".utf8))
        return Data(hash.hmac(key: serverKey, Array(authMessage.utf8))).base64EncodedString()
    }
}
