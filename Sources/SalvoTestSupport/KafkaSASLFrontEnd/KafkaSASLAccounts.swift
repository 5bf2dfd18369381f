/// The users a front end accepts and the mechanisms it offers, with the SCRAM credentials
/// derived from the passwords when it starts (fresh random salts every run).
struct KafkaSASLAccounts: Sendable {
    /// In the order the handshake answer lists them.
    var mechanisms: [KafkaSASLMechanism]
    /// For PLAIN, which sends the password itself.
    var passwords: [String: String]
    var scramCredentials: [SCRAMHash: [String: SCRAMCredential]]

    init(mechanisms: [KafkaSASLMechanism], users: [String: String]) {
        var seen = Set<KafkaSASLMechanism>()
        self.mechanisms = mechanisms.filter { seen.insert($0).inserted }
        self.passwords = mechanisms.contains(.plain) ? users : [:]
        self.scramCredentials = [:]
        for hash in self.mechanisms.compactMap(\.scramHash) {
            scramCredentials[hash] = users.mapValues { SCRAMCredential.random(password: $0, hash: hash) }
        }
    }

    /// No mechanism: the front end only terminates TLS and relays from the first byte.
    var requiresAuthentication: Bool { !mechanisms.isEmpty }
}
