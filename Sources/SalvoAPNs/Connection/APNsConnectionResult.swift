/// How one request on one connection ended, as the pool needs to know it.
enum APNsConnectionResult: Sendable {
    /// APNs answered (any status but an ExpiredProviderToken 403).
    case response(APNsResponse)
    /// APNs answered 403 ExpiredProviderToken; the token provider has been told and says where
    /// the replay with the refreshed token must go.
    case expiredProviderToken(APNsResponse, APNsExpiredTokenAction)
    /// No answer: ``APNsError/Code/notSent`` (safe to replay), ``APNsError/Code/timedOut`` or
    /// ``APNsError/Code/connectionLost`` (APNs may have delivered it), or a signing failure.
    case failed(APNsError)
}
