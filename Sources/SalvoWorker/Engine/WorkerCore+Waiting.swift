/// Work waiting outside the lanes and out of flight, taken out in one place for those that stop
/// part of it: a revoke (its partitions) and a campaign command (its campaign).
extension WorkerCore {
    /// Removes every notification `matches` selects from the retry scheduler and the delayed
    /// sends (in batches, with their due times), the replays and the pools' parked work (due now).
    func takeWaiting(
        where matches: (PushNotification) -> Bool
    ) -> (scheduled: [RetryScheduler.StateMachine<C>.Batch], dueNow: [PushNotification]) {
        let scheduled = retries.removeAll(where: matches) + delayedSends.removeAll(where: matches)
        var dueNow: [PushNotification] = []
        ready.removeAll { item in
            guard matches(item.notification) else { return false }
            dueNow.append(item.notification)
            return true
        }
        for index in slots.indices where !slots[index].parked.isEmpty {
            slots[index].parked.removeAll { item in
                guard matches(item.notification) else { return false }
                dueNow.append(item.notification)
                parkedCount -= 1
                return true
            }
        }
        return (scheduled, dueNow)
    }
}
