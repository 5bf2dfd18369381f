import SalvoAPNs

/// Which pool a notification goes through: its app (credential) and the environment its job
/// names. Apps sharing one `.p8` key still get pools of their own, which share one JWT.
struct WorkerPoolKey: Hashable, Sendable {
    var app: String
    var environment: APNsEnvironment.Kind
}
