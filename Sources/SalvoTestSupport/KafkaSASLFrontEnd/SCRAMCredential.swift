/// What a SCRAM server stores for a user (RFC 5802 section 3): the salt, the iteration count,
/// StoredKey = H(ClientKey) and ServerKey — never the password. Derived once when the front end
/// starts, as a broker derives them when the credential is created, so a login costs two HMACs
/// rather than 4096.
struct SCRAMCredential: Sendable, Hashable {
    var salt: [UInt8]
    var iterations: Int
    var storedKey: [UInt8]
    var serverKey: [UInt8]

    /// Kafka's default and RFC 7677's recommended minimum.
    static let defaultIterations = 4096

    init(password: String, salt: [UInt8], iterations: Int = Self.defaultIterations, hash: SCRAMHash) {
        let saltedPassword = hash.hi(password: Array(password.utf8), salt: salt, iterations: iterations)
        let clientKey = hash.hmac(key: saltedPassword, Array("Client Key".utf8))
        self.salt = salt
        self.iterations = iterations
        self.storedKey = hash.hash(clientKey)
        self.serverKey = hash.hmac(key: saltedPassword, Array("Server Key".utf8))
    }

    /// A credential with a fresh random 16-byte salt: a new one every run.
    static func random(password: String, hash: SCRAMHash) -> SCRAMCredential {
        SCRAMCredential(password: password, salt: (0..<16).map { _ in UInt8.random(in: .min ... .max) }, hash: hash)
    }
}
