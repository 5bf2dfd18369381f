import SalvoAPNs

/// What the worker core needs of an APNs pool: submit a round's requests and hear each outcome,
/// by index, on the core's event loop. ``APNsConnectionPool`` is the real one; the core's tests
/// answer by hand.
protocol WorkerDispatchPool: AnyObject {
    func submit(_ requests: [APNsRequest], onOutcome: @escaping @Sendable (Int, APNsOutcome) -> Void)
}

extension APNsConnectionPool: WorkerDispatchPool {}
