import Crypto

/// The hash of a SCRAM mechanism and the three functions RFC 5802 builds on it: H(), HMAC() and
/// Hi(), the PBKDF2 with HMAC that turns a password into the salted password.
enum SCRAMHash: Sendable, Hashable {
    case sha256
    case sha512

    func hash(_ data: [UInt8]) -> [UInt8] {
        switch self {
        case .sha256: Array(SHA256.hash(data: data))
        case .sha512: Array(SHA512.hash(data: data))
        }
    }

    func hmac(key: [UInt8], _ message: [UInt8]) -> [UInt8] {
        switch self {
        case .sha256: Self.hmac(SHA256.self, key: SymmetricKey(data: key), message)
        case .sha512: Self.hmac(SHA512.self, key: SymmetricKey(data: key), message)
        }
    }

    /// Hi(str, salt, i) of RFC 5802 section 2.2: U1 = HMAC(str, salt + INT(1)),
    /// Ui = HMAC(str, Ui-1), and the result is U1 XOR U2 XOR ... XOR Ui.
    func hi(password: [UInt8], salt: [UInt8], iterations: Int) -> [UInt8] {
        switch self {
        case .sha256: Self.hi(SHA256.self, password: password, salt: salt, iterations: iterations)
        case .sha512: Self.hi(SHA512.self, password: password, salt: salt, iterations: iterations)
        }
    }

    private static func hmac<H: HashFunction>(_: H.Type, key: SymmetricKey, _ message: [UInt8]) -> [UInt8] {
        Array(HMAC<H>.authenticationCode(for: message, using: key))
    }

    private static func hi<H: HashFunction>(
        _ hash: H.Type, password: [UInt8], salt: [UInt8], iterations: Int
    ) -> [UInt8] {
        let key = SymmetricKey(data: password)
        var block = hmac(hash, key: key, salt + [0, 0, 0, 1])
        var result = block
        for _ in 1..<max(iterations, 1) {
            block = hmac(hash, key: key, block)
            for index in result.indices { result[index] ^= block[index] }
        }
        return result
    }
}
