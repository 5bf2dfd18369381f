import Logging
import NIOCore
import SalvoHTTP2
import Synchronization

/// Live Activity channels and broadcasts: channel management (create, read, delete, list) on
/// Apple's management hosts, and broadcast sends on the normal APNs hosts, with the same
/// credentials and the same provider-token registry as ``APNsClient`` (one JWT per team and key
/// for both). Each (credential, host) gets its own ``APNsChannelPool``.
///
/// Broadcasts do not go through the device pools: their requests are encoded for
/// `/3/device/<token>` only. Every method answers APNs's response for any status (a refusal is
/// a response with ``APNsChannelResponse/reason``); it throws only when no answer came.
public final class APNsChannelClient: Sendable {
    public let configuration: APNsConnection.Configuration
    private let group: any EventLoopGroup
    private let authorizationSource: @Sendable (APNsTokenCredential) throws(APNsError) -> APNsAuthorizationSource
    private let pools = Mutex<(pools: [APNsPoolKey: APNsChannelPool], isShutDown: Bool)>(([:], false))

    /// - Parameter configuration: Transport, timeouts, TLS server name. Default: TLS to Apple.
    public init<C: Clock>(
        configuration: APNsConnection.Configuration = APNsConnection.Configuration(),
        eventLoopGroup: any EventLoopGroup,
        tokenProviders: APNsTokenProviderRegistry<C>
    ) throws(APNsError) where C.Duration == Duration {
        try configuration.validate()
        self.configuration = configuration
        self.group = eventLoopGroup
        self.authorizationSource = { (credential) throws(APNsError) in
            APNsAuthorizationSource(provider: try tokenProviders.provider(for: credential))
        }
    }

    /// A client whose provider tokens run on the continuous clock (production).
    public convenience init(
        configuration: APNsConnection.Configuration = APNsConnection.Configuration(), eventLoopGroup: any EventLoopGroup
    ) throws(APNsError) {
        try self.init(
            configuration: configuration, eventLoopGroup: eventLoopGroup,
            tokenProviders: try APNsTokenProviderRegistry(clock: ContinuousClock()))
    }

    // MARK: Channel management

    /// `POST /1/apps/<bundle>/channels`: 201 with the new channel's id in ``APNsChannelResponse/channelID``.
    /// - Parameter endpoint: the management host (``APNsEnvironment/channelManagement`` for Apple's).
    public func createChannel(
        bundleID: APNsTopic, storagePolicy: APNsChannelStoragePolicy, requestID: APNsID? = nil,
        credential: APNsCredential, endpoint: APNsEnvironment
    ) async throws(APNsError) -> APNsChannelResponse {
        try await self.request(
            method: "POST", path: "/1/apps/\(bundleID.string)/channels", fields: [], requestID: requestID,
            body: APNsChannelConfiguration(storagePolicy: storagePolicy).encoded(), credential: credential,
            endpoint: endpoint)
    }

    /// `GET /1/apps/<bundle>/channels`: 200 with the settings (``APNsChannelResponse/channelConfiguration()``).
    public func readChannel(
        bundleID: APNsTopic, channelID: APNsChannelID, requestID: APNsID? = nil, credential: APNsCredential,
        endpoint: APNsEnvironment
    ) async throws(APNsError) -> APNsChannelResponse {
        try await self.request(
            method: "GET", path: "/1/apps/\(bundleID.string)/channels", fields: [("apns-channel-id", channelID.string)],
            requestID: requestID, body: [], credential: credential, endpoint: endpoint)
    }

    /// `DELETE /1/apps/<bundle>/channels`: 204.
    public func deleteChannel(
        bundleID: APNsTopic, channelID: APNsChannelID, requestID: APNsID? = nil, credential: APNsCredential,
        endpoint: APNsEnvironment
    ) async throws(APNsError) -> APNsChannelResponse {
        try await self.request(
            method: "DELETE", path: "/1/apps/\(bundleID.string)/channels",
            fields: [("apns-channel-id", channelID.string)],
            requestID: requestID, body: [], credential: credential, endpoint: endpoint)
    }

    /// `GET /1/apps/<bundle>/all-channels`: 200 with the ids (``APNsChannelResponse/listedChannelIDs()``).
    public func listChannels(
        bundleID: APNsTopic, requestID: APNsID? = nil, credential: APNsCredential, endpoint: APNsEnvironment
    ) async throws(APNsError) -> APNsChannelResponse {
        try await self.request(
            method: "GET", path: "/1/apps/\(bundleID.string)/all-channels", fields: [], requestID: requestID, body: [],
            credential: credential, endpoint: endpoint)
    }

    // MARK: Broadcast

    /// `POST /4/broadcasts/apps/<bundle>` on the APNs host of `environment`: 200 with
    /// `apns-request-id` and `apns-unique-id`.
    public func broadcast(
        _ broadcast: APNsBroadcastRequest, credential: APNsCredential, environment: APNsEnvironment
    ) async throws(APNsError) -> APNsChannelResponse {
        try await self.request(
            method: "POST", path: broadcast.path, fields: broadcast.headerFields, requestID: nil,
            body: Array(broadcast.payload.readableBytesView), credential: credential, endpoint: environment)
    }

    /// Closes every connection; later requests fail as not sent.
    public func shutdown() async {
        let pools = self.pools.withLock { state in
            state.isShutDown = true
            return Array(state.pools.values)
        }
        for pool in pools { await pool.shutdown() }
    }

    // MARK: Sending

    private func request(
        method: String, path: String, fields: [(String, String)], requestID: APNsID?, body: [UInt8],
        credential: APNsCredential, endpoint: APNsEnvironment
    ) async throws(APNsError) -> APNsChannelResponse {
        let pool = try self.pool(for: credential, endpoint: endpoint)
        // One replay: after ExpiredProviderToken with a fresh token (Apple's retry matrix), or a
        // request that never left a connection that was going away.
        for attempt in 0..<2 {
            let connection = try await pool.connection()
            var headers = HTTP2Headers()
            for (name, value) in fields { headers.add(name: name, value: value) }
            if let requestID { headers.add(name: "apns-request-id", value: requestID.string) }
            var authorization: APNsAuthorization?
            if let source = pool.authorizationSource {
                let token = try source.authorization(connection.id)
                authorization = token
                headers.add(name: "authorization", value: token.headerValue)
            }
            if !body.isEmpty { headers.add(name: "content-type", value: "application/json") }
            let request = HTTP2Request(
                method: method, scheme: pool.scheme, authority: pool.authority, path: path, headers: headers,
                body: ByteBuffer(bytes: body))
            let answer: HTTP2Response
            do {
                answer = try await pool.send(request, on: connection)
            } catch  where attempt == 0 && error.code == .notSent {
                // The connection was going away (GOAWAY) before the request left: replaying it on
                // a fresh connection is always safe.
                continue
            }
            let response = APNsChannelResponse(
                status: answer.status, headers: answer.headers.map { ($0.name, $0.value) }, body: answer.body)
            if attempt == 0, response.status == 403, response.reason == .expiredProviderToken, let authorization,
                let source = pool.authorizationSource
            {
                _ = source.expired(connection.id, authorization.generation)
                continue
            }
            return response
        }
        preconditionFailure("the loop returns on its second attempt")
    }

    private func pool(for credential: APNsCredential, endpoint: APNsEnvironment) throws(APNsError) -> APNsChannelPool {
        let key = APNsPoolKey(credential, endpoint)
        let result: Result<APNsChannelPool, APNsError> = self.pools.withLock { state in
            if state.isShutDown { return .failure(.notSent("the channel client is shut down")) }
            if let pool = state.pools[key] { return .success(pool) }
            do throws(APNsError) {
                var source: APNsAuthorizationSource?
                if case .token(let token) = credential { source = try self.authorizationSource(token) }
                let pool = try APNsChannelPool(
                    endpoint: endpoint, credential: credential, configuration: self.configuration,
                    eventLoop: self.group.next(),
                    authorizationSource: source)
                state.pools[key] = pool
                return .success(pool)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}
