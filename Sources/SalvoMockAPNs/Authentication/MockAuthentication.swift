import SalvoAPNs

/// How one connection proves it may push, decided once per connection as APNs does: a client
/// certificate if the TLS handshake carried one, else provider tokens on every request, unless the
/// mock was started without any way to authenticate (h2c load tests), where nothing is checked.
enum MockAuthentication: Sendable, Equatable {
    /// No client CA and no token keys configured: requests are not authenticated.
    case open
    /// Every request needs `authorization: bearer <JWT>` signed by a configured key.
    case token
    /// A client certificate naming this bundle id (subject UID): its topics only.
    case certificate(bundleID: String)
    /// A client certificate without a bundle id: every request gets 403 `BadCertificate`.
    case badCertificate

    /// - Parameters:
    ///   - certificateBundleID: `.some(nil)` for a certificate without UID, nil without certificate.
    ///   - requiresAuthentication: whether a client CA or token keys are configured.
    static func resolve(certificateBundleID: String??, requiresAuthentication: Bool) -> MockAuthentication {
        switch certificateBundleID {
        case .some(.some(let bundleID)): return .certificate(bundleID: bundleID)
        case .some(.none): return .badCertificate
        case .none: return requiresAuthentication ? .token : .open
        }
    }

    /// The validator for this connection: a certificate connection may leave `apns-topic` out
    /// (its bundle id is used) and may push only to its bundle id and the bundle id plus a push
    /// type's suffix (`.voip`, `.complication`, …), like Apple's universal certificates.
    func makeValidator() -> APNsRequestValidator {
        guard case .certificate(let bundleID) = self, let topic = APNsTopic(headerValue: bundleID.utf8) else {
            return APNsRequestValidator()
        }
        let allowed = Set(
            [topic.headerValue]
                + APNsPushType.allCases.compactMap { type in
                    type.topicSuffix.map { Array((bundleID + $0).utf8) }
                })
        return APNsRequestValidator(topicWhenMissing: topic, isTopicAllowed: { allowed.contains($0.headerValue) })
    }
}
