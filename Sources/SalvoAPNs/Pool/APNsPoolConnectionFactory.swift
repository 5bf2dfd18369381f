/// Opens connections for a pool.
protocol APNsPoolConnectionFactory: Sendable {
    /// Starts connecting; `completion` runs once on the pool's event loop with a ready connection
    /// (its first SETTINGS received) or the reason it failed. The connection holds `delegate` until
    /// it closes.
    func makeConnection(
        id: APNsConnectionID,
        delegate: any APNsPoolConnectionDelegate,
        completion: @escaping (Result<any APNsPoolConnection, APNsError>) -> Void
    )
}
