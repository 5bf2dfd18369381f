/// The server side of SASL PLAIN (RFC 4616): one message, `authzid NUL authcid NUL passwd`,
/// answered with an empty token. The authorization id must be empty or the user's own, as
/// Kafka's PlainSaslServer requires.
enum PlainServerExchange {
    /// Kafka's PlainSaslServer text for a wrong user or password.
    static let invalidCredentialsMessage = "Authentication failed: Invalid username or password"

    /// The authenticated user, or why not.
    static func authenticate(_ token: [UInt8], passwords: [String: String]) -> Result<String, Failure> {
        let fields = token.split(separator: 0, omittingEmptySubsequences: false)
        guard fields.count == 3 else { return .failure(Failure(reason: "malformed PLAIN message")) }
        let (authorizationID, user, password) = (
            String(decoding: fields[0], as: UTF8.self), String(decoding: fields[1], as: UTF8.self), Array(fields[2])
        )
        guard authorizationID.isEmpty || authorizationID == user else {
            return .failure(Failure(reason: "authorization id differs from user \(user)"))
        }
        guard let expected = passwords[user],
            SCRAMServerExchange.constantTimeEqual(Array(expected.utf8), password)
        else { return .failure(Failure(reason: "wrong user or password for \(user)")) }
        return .success(user)
    }

    struct Failure: Error, Equatable {
        var reason: String
    }
}
