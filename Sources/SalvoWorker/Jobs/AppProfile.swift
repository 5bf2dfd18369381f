import SalvoAPNs

/// What the decoder must know about an app a job names: the bundle id its topics derive from and
/// the environment its notifications go to when the job does not say. Credentials live with the
/// APNs pools; a job only ever refers to an app by name, so producers never handle keys.
package struct AppProfile: Sendable, Hashable {
    /// The app's bundle id. A job without `topic` is sent to the topic the push type derives from
    /// it (`com.example.app`, `com.example.app.voip`, …).
    package var bundleID: String
    /// Where notifications go when a job has no `environment`. Default: production.
    package var environment: APNsEnvironment.Kind

    package init(bundleID: String, environment: APNsEnvironment.Kind = .production) {
        self.bundleID = bundleID
        self.environment = environment
    }
}
