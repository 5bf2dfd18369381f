/// What makes two pools the same: the credential's identity and the environment. Token
/// credentials are identified by (team, key), as their provider tokens are.
struct APNsPoolKey: Hashable, Sendable {
    enum Identity: Hashable, Sendable {
        case certificate(APNsCertificateCredential)
        case token(teamID: String, keyID: String)
    }

    var identity: Identity
    var environment: APNsEnvironment

    init(_ credential: APNsCredential, _ environment: APNsEnvironment) {
        switch credential {
        case .certificate(let certificate): self.identity = .certificate(certificate)
        case .token(let token): self.identity = .token(teamID: token.teamID, keyID: token.keyID)
        }
        self.environment = environment
    }
}
