import NIOCore
import SalvoAPNs
import Synchronization

/// Sends broadcast jobs for the worker's apps: one ``APNsChannelClient`` per app (its transport:
/// trust roots, h2c, TLS server name), all on the engine's provider-token registry, so an app's
/// broadcasts and device pushes share one JWT per team and key.
public final class BroadcastSender: Sendable {
    private let clients: [String: (client: APNsChannelClient, app: WorkerApp)]

    /// - Parameter apps: the worker's apps by the name jobs use.
    public init<C: Clock>(
        apps: [String: WorkerApp], eventLoopGroup: any EventLoopGroup, tokenProviders: APNsTokenProviderRegistry<C>
    ) throws(APNsError) where C.Duration == Duration {
        var clients: [String: (APNsChannelClient, WorkerApp)] = [:]
        for (name, app) in apps {
            clients[name] = (
                try APNsChannelClient(configuration: app.pool.connection, eventLoopGroup: eventLoopGroup, tokenProviders: tokenProviders),
                app
            )
        }
        self.clients = clients
    }

    /// One attempt: the job's request to its app's endpoint for the job's environment. A failure
    /// is an ``APNsError`` (not sent, timed out, no endpoint for the environment); a refusal is a
    /// response. Feed the result to ``BroadcastOutcome/classify(_:job:message:source:attempt:at:)``.
    /// - Parameter storagePolicy: the channel's, when the caller knows it.
    public func send(_ job: BroadcastJob, storagePolicy: APNsChannelStoragePolicy? = nil) async -> Result<APNsChannelResponse, APNsError> {
        guard let (client, app) = self.clients[job.app] else {
            return .failure(APNsError(code: .invalidConfiguration, message: "app \"\(job.app)\" is not configured on this worker"))
        }
        guard let endpoint = app.endpoints[job.environment] else {
            return .failure(
                APNsError(code: .invalidConfiguration, message: "app \"\(job.app)\" has no \(job.environment.rawValue) environment"))
        }
        let request: APNsBroadcastRequest
        do throws(JobRejection) {
            request = try job.request(storagePolicy: storagePolicy)
        } catch {
            return .failure(APNsError(code: .invalidExpiration, message: error.message, reason: .badExpirationDate))
        }
        do {
            return .success(try await client.broadcast(request, credential: app.credential, environment: endpoint))
        } catch {
            return .failure(error)
        }
    }

    /// Closes every connection (at drain, after the last broadcast was answered).
    public func shutdown() async {
        for (client, _) in self.clients.values { await client.shutdown() }
    }
}
