/// What a connection tells its pool, on the event loop.
protocol APNsPoolConnectionDelegate: AnyObject {
    /// The request submitted with `tag` ended.
    func connection(_ id: APNsConnectionID, completed tag: UInt64, with result: APNsConnectionResult)
    func connection(_ id: APNsConnectionID, maxConcurrentStreamsChanged value: Int)
    /// GOAWAY received or sent: route nothing new to it, replace it.
    func connectionDraining(_ id: APNsConnectionID)
    /// The connection is gone (`error` says why, nil after an orderly close). Called before the
    /// failures of its remaining requests are delivered, so replays avoid it.
    func connectionClosed(_ id: APNsConnectionID, error: APNsError?)
}
