import NIOCore
import SalvoAPNs
import Synchronization

/// Sends broadcast jobs for the worker's apps: one ``APNsChannelClient`` per app (its transport:
/// trust roots, h2c, TLS server name), all on the engine's provider-token registry, so an app's
/// broadcasts and device pushes share one JWT per team and key.
///
/// Apple's storage rule (a channel created with `message-storage-policy` 0 takes only
/// `apns-expiration: 0`) is checked before sending: a broadcast with a nonzero expiration first
/// learns its channel's policy with one channel read, remembered for the channel's life (a policy
/// never changes). Expiration 0 suits every channel and sends at once.
package final class BroadcastSender: Sendable {
    private struct App: Sendable {
        var client: APNsChannelClient
        var app: WorkerApp
        var management: [APNsEnvironment.Kind: APNsEnvironment]
    }

    private let apps: [String: App]
    /// Channel policies learnt by reads, per (app, environment, channel). Bounded: cleared when
    /// it reaches ``maximumRememberedPolicies`` (each entry costs a read to learn again).
    private let policies = Mutex<[String: APNsChannelStoragePolicy]>([:])
    static let maximumRememberedPolicies = 100_000

    /// - Parameters:
    ///   - apps: the worker's apps by the name jobs use.
    ///   - managementEndpoints: where an app's channel-management API is, per environment, when
    ///     it is not Apple's (a mock's `--broadcast-listen`). Apple's environments need none.
    ///     Without an endpoint the storage rule is left to APNs (`BadExpirationDate`).
    package init<C: Clock>(
        apps: [String: WorkerApp], managementEndpoints: [String: [APNsEnvironment.Kind: APNsEnvironment]] = [:],
        eventLoopGroup: any EventLoopGroup, tokenProviders: APNsTokenProviderRegistry<C>
    ) throws(APNsError) where C.Duration == Duration {
        var built: [String: App] = [:]
        for (name, app) in apps {
            var management = managementEndpoints[name] ?? [:]
            for (kind, endpoint) in app.endpoints where management[kind] == nil {
                if case .custom = endpoint { continue }
                management[kind] = endpoint.channelManagement
            }
            let client = try APNsChannelClient(
                configuration: app.pool.connection, eventLoopGroup: eventLoopGroup, tokenProviders: tokenProviders)
            built[name] = App(client: client, app: app, management: management)
        }
        self.apps = built
    }

    /// One attempt: the job's request to its app's endpoint for the job's environment. A failure
    /// is an ``APNsError`` (not sent, timed out, no endpoint for the environment, the storage
    /// rule broken); a refusal is a response (also a read's `ChannelNotRegistered`). Feed the
    /// result to ``BroadcastOutcome/classify(_:job:message:source:attempt:at:)``.
    package func send(_ job: BroadcastJob) async -> Result<APNsChannelResponse, APNsError> {
        guard let entry = self.apps[job.app] else {
            return .failure(
                APNsError(code: .invalidConfiguration, message: "app \"\(job.app)\" is not configured on this worker"))
        }
        guard let endpoint = entry.app.endpoints[job.environment] else {
            return .failure(
                APNsError(
                    code: .invalidConfiguration,
                    message: "app \"\(job.app)\" has no \(job.environment.rawValue) environment"))
        }
        var policy: APNsChannelStoragePolicy?
        if job.expiration.secondsSince1970 != 0, let management = entry.management[job.environment] {
            switch await self.policy(of: job, entry: entry, management: management) {
            case .success(let known): policy = known
            case .failure(let refusal): return .success(refusal.response)
            }
        }
        let request: APNsBroadcastRequest
        do throws(JobRejection) {
            request = try job.request(storagePolicy: policy)
        } catch {
            return .failure(APNsError(code: .invalidExpiration, message: error.message, reason: .badExpirationDate))
        }
        do {
            return .success(
                try await entry.client.broadcast(request, credential: entry.app.credential, environment: endpoint))
        } catch {
            return .failure(error)
        }
    }

    /// The channel's policy, remembered or read; nil when the read got no answer (the management
    /// host unreachable must not hold broadcasts back: APNs then applies the rule itself); the
    /// read's refusal when it did not answer 200 (`ChannelNotRegistered` stands for the
    /// broadcast's answer, and a 429 or 5xx is retried like one).
    private func policy(
        of job: BroadcastJob, entry: App, management: APNsEnvironment
    ) async -> Result<APNsChannelStoragePolicy?, ChannelRefusal> {
        let key = "\(job.app)/\(job.environment.rawValue)/\(job.channelID.string)"
        if let known = self.policies.withLock({ $0[key] }) { return .success(known) }
        let response: APNsChannelResponse
        do {
            response = try await entry.client.readChannel(
                bundleID: job.bundleID, channelID: job.channelID, credential: entry.app.credential, endpoint: management
            )
        } catch {
            return .success(nil)
        }
        guard response.status == 200 else { return .failure(ChannelRefusal(response: response)) }
        guard let configuration = try? response.channelConfiguration() else { return .success(nil) }
        self.policies.withLock { policies in
            if policies.count >= Self.maximumRememberedPolicies { policies.removeAll(keepingCapacity: true) }
            policies[key] = configuration.storagePolicy
        }
        return .success(configuration.storagePolicy)
    }

    /// A channel read's refusal, standing for the broadcast's answer.
    private struct ChannelRefusal: Error {
        var response: APNsChannelResponse
    }

    /// Closes every connection (at drain, after the last broadcast was answered).
    package func shutdown() async {
        for entry in self.apps.values { await entry.client.shutdown() }
    }
}
