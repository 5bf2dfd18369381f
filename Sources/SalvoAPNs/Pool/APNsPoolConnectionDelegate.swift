/// Connection events the pool reacts to, delivered on the event loop.
protocol APNsPoolConnectionDelegate: AnyObject {
    func connection(_ id: APNsConnectionID, maxConcurrentStreamsChanged value: Int)
    /// GOAWAY received or sent: route nothing new to it, replace it.
    func connectionDraining(_ id: APNsConnectionID)
    /// The connection is gone (`error` says why, nil after an orderly close). Called before the
    /// failures of its remaining requests are delivered, so replays avoid it.
    func connectionClosed(_ id: APNsConnectionID, error: APNsError?)
}
