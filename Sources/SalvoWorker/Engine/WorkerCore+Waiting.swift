/// Work waiting outside the lanes and out of flight, taken out in one place for those that stop
/// part of it: a revoke (its partitions) and a campaign command (its campaign).
extension WorkerCore {
    /// Removes every notification `matches` selects from the retry scheduler and the delayed
    /// sends (in batches, with their due times), the replays and the pools' parked work (due now).
    func takeWaiting(
        where matches: (PushNotification) -> Bool
    ) -> (
        retries: [RetryScheduler.StateMachine<C>.Batch], delayed: [RetryScheduler.StateMachine<C>.Batch],
        dueNow: [PushNotification]
    ) {
        let retries = waitingWork.retries.removeAll(where: matches)
        let delayed = waitingWork.delayedSends.removeAll(where: matches)
        var dueNow: [PushNotification] = []
        waitingWork.ready.removeAll { item in
            guard matches(item.notification) else { return false }
            dueNow.append(item.notification)
            return true
        }
        for index in pools.slots.indices where !pools.slots[index].parked.isEmpty {
            let before = dueNow.count
            pools.slots[index].parked.removeAll { item in
                guard matches(item.notification) else { return false }
                dueNow.append(item.notification)
                return true
            }
            pools.parkedCount -= dueNow.count - before
        }
        return (retries, delayed, dueNow)
    }
}
