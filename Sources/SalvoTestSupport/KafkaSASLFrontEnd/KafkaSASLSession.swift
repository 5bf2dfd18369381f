import NIOCore

/// One client connection's SASL state, as a Kafka SASL listener keeps it: before authentication
/// only ApiVersions, SaslHandshake and then SaslAuthenticate are allowed; anything else closes the
/// connection without an answer. Each frame in gives one action for the connection to carry out.
struct KafkaSASLSession: Sendable {
    /// What the connection does with a frame.
    enum Action: Equatable, Sendable {
        /// ApiVersions: pass the frame to the broker and its answer back (it lists what the broker
        /// behind supports, which the client relies on after authentication).
        case forwardToUpstream
        /// Write this and read on.
        case reply(ByteBuffer)
        /// Write this, count the failure, then close.
        case replyAndClose(ByteBuffer, Failure)
        /// Write this (if any), count the user as authenticated, and relay bytes from now on.
        case replyAndRelay(ByteBuffer?, user: String, mechanism: KafkaSASLMechanism)
        /// Close without an answer.
        case close(Failure)
    }

    /// Why a connection ends before authentication.
    enum Failure: Equatable, Sendable {
        case unsupportedMechanism(String)
        case authenticationFailed(mechanism: KafkaSASLMechanism, reason: String)
        /// A request not allowed in the current state, or a malformed frame.
        case refusedRequest(String)
    }

    private enum Exchange: Sendable {
        case scram(SCRAMServerExchange)
        case plain
    }

    private enum State: Sendable {
        case awaitingHandshake
        /// `raw`: handshake v0, so tokens come as bare size-prefixed frames, not SaslAuthenticate.
        case authenticating(KafkaSASLMechanism, Exchange, raw: Bool)
        case relaying
    }

    private let accounts: KafkaSASLAccounts
    private var state: State

    init(accounts: KafkaSASLAccounts) {
        self.accounts = accounts
        self.state = accounts.requiresAuthentication ? .awaitingHandshake : .relaying
    }

    /// Whether bytes pass through untouched (authenticated, or no SASL at all).
    var isRelaying: Bool {
        if case .relaying = state { return true }
        return false
    }

    /// One frame, without its size prefix.
    mutating func receive(frame: ByteBuffer) -> Action {
        var body = frame
        if case .authenticating(let mechanism, let exchange, raw: true) = state {
            let token = body.readBytes(length: body.readableBytes) ?? []
            return authenticate(token, mechanism: mechanism, exchange: exchange) { errorMessage, token in
                // Handshake v0 has no error answer: a Kafka broker just closes the connection.
                errorMessage == nil ? KafkaSASLResponses.rawToken(token) : nil
            }
        }
        guard let header = KafkaRequestHeader.read(from: &body) else {
            return .close(.refusedRequest("malformed request header"))
        }
        switch (header.apiKey, state) {
        case (KafkaRequestHeader.apiVersions, .awaitingHandshake):
            // Only before the handshake, as Kafka's SaslServerAuthenticator allows it.
            return .forwardToUpstream
        case (KafkaRequestHeader.saslHandshake, .awaitingHandshake):
            return handshake(header, body: &body)
        case (KafkaRequestHeader.saslAuthenticate, .authenticating(let mechanism, let exchange, raw: false)):
            guard let token = header.isFlexible ? body.readKafkaCompactBytes() : body.readKafkaBytes() else {
                return .close(.refusedRequest("malformed SaslAuthenticate request"))
            }
            return authenticate(token, mechanism: mechanism, exchange: exchange) { errorMessage, token in
                let errorCode =
                    errorMessage == nil ? KafkaSASLResponses.noError : KafkaSASLResponses.saslAuthenticationFailed
                return KafkaSASLResponses.authenticate(
                    version: header.apiVersion, correlationID: header.correlationID, errorCode: errorCode,
                    errorMessage: errorMessage, authBytes: token)
            }
        default:
            return .close(.refusedRequest("api key \(header.apiKey) v\(header.apiVersion) before authentication"))
        }
    }

    private mutating func handshake(_ header: KafkaRequestHeader, body: inout ByteBuffer) -> Action {
        guard header.apiVersion <= 1, let name = body.readKafkaNullableString() else {
            return .close(.refusedRequest("malformed SaslHandshake v\(header.apiVersion) request"))
        }
        guard let mechanism = (name ?? nil).flatMap(KafkaSASLMechanism.init(rawValue:)),
            accounts.mechanisms.contains(mechanism)
        else {
            let answer = KafkaSASLResponses.handshake(
                correlationID: header.correlationID, errorCode: KafkaSASLResponses.unsupportedSASLMechanism,
                mechanisms: accounts.mechanisms)
            return .replyAndClose(answer, .unsupportedMechanism((name ?? nil) ?? "null"))
        }
        let exchange: Exchange =
            mechanism.scramHash.map {
                .scram(SCRAMServerExchange(hash: $0, credentials: accounts.scramCredentials[$0] ?? [:]))
            } ?? .plain
        state = .authenticating(mechanism, exchange, raw: header.apiVersion == 0)
        return .reply(
            KafkaSASLResponses.handshake(
                correlationID: header.correlationID, errorCode: KafkaSASLResponses.noError,
                mechanisms: accounts.mechanisms))
    }

    /// Runs the mechanism on one token; `answer` frames the outcome (error message or `nil`,
    /// and the token to send), returning `nil` when the failure gets no answer.
    private mutating func authenticate(
        _ token: [UInt8], mechanism: KafkaSASLMechanism, exchange: Exchange,
        answer: (String?, [UInt8]) -> ByteBuffer?
    ) -> Action {
        let step: SCRAMServerExchange.Step
        switch exchange {
        case .scram(var scram):
            step = scram.receive(token)
            state = .authenticating(mechanism, .scram(scram), raw: isRaw)
        case .plain:
            switch PlainServerExchange.authenticate(token, passwords: accounts.passwords) {
            case .success(let user): step = .succeeded(user: user, serverFinal: [])
            case .failure(let failure):
                step = .failed(reason: failure.reason, message: PlainServerExchange.invalidCredentialsMessage)
            }
        }
        switch step {
        case .challenge(let challenge):
            return answer(nil, challenge).map(Action.reply) ?? .close(.refusedRequest("no answer"))
        case .succeeded(let user, let serverFinal):
            state = .relaying
            return .replyAndRelay(answer(nil, serverFinal), user: user, mechanism: mechanism)
        case .failed(let reason, let message):
            let failure = Failure.authenticationFailed(mechanism: mechanism, reason: reason)
            let text =
                message
                ?? "Authentication failed during authentication due to invalid credentials with SASL mechanism \(mechanism)"
            return answer(text, []).map { .replyAndClose($0, failure) } ?? .close(failure)
        }
    }

    private var isRaw: Bool {
        if case .authenticating(_, _, raw: let raw) = state { return raw }
        return false
    }
}
