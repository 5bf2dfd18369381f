import SalvoKafka
import SalvoPrimitives

extension RetryScheduler {
    /// Holds waiting notifications in buckets keyed by (app, due-time window), earliest first.
    ///
    /// Inputs: ``schedule(_:reason:now:)`` for each notification the classifier sent to retry,
    /// ``hold(_:until:now:)`` for retry-topic records not yet due, ``collectDue(now:)`` when the timer for ``nextDeadline`` fires, ``drainForShutdown()``.
    /// Outputs are values the caller acts on: batches to re-dispatch, batches to hand to the retry
    /// topic. Time only moves through the `now` arguments, so tests drive it.
    package struct StateMachine<C: Clock>: Sendable where C.Duration == Duration {
        package typealias Instant = C.Instant

        /// Notifications of one app due together. Their ``PushNotification/attempt`` is already the
        /// attempt the next send is.
        package struct Batch: Sendable, Equatable {
            package var app: String
            package var due: Instant
            package var notifications: [PushNotification]
        }

        package enum ScheduleAction: Sendable, Equatable {
            /// Held until `due` (the end of its window). `rearmTimer` is true when this made the
            /// earliest deadline earlier, so the caller's timer must be set to ``nextDeadline``.
            case held(due: Instant, rearmTimer: Bool)
            /// Not held (memory bound reached, or due beyond `maximumHeldDelay`): publish the batch
            /// to the retry topic, due at `due`.
            case handOff(Batch)
        }

        private struct BucketKey: Hashable, Comparable {
            var window: Int64
            var app: String

            static func < (lhs: BucketKey, rhs: BucketKey) -> Bool {
                (lhs.window, lhs.app) < (rhs.window, rhs.app)
            }
        }

        private let configuration: Configuration
        /// Windows are counted from here.
        private let epoch: Instant
        private let windowNanoseconds: Int64
        private var jitter: Jitter
        private var buckets: [BucketKey: [PushNotification]] = [:]
        /// The keys of `buckets`, sorted (earliest window first).
        private var order: [BucketKey] = []
        /// Notifications currently held.
        package private(set) var heldCount = 0

        package init(
            configuration: Configuration = Configuration(), now: Instant, jitter: Jitter = .random()
        ) throws(SalvoWorkerError) {
            try configuration.validate()
            self.configuration = configuration
            self.epoch = now
            self.windowNanoseconds = configuration.batchWindow.nanoseconds
            self.jitter = jitter
        }

        /// A notification the classifier sent to retry (with ``Outcome/retry(_:)``): computes its
        /// due time from its attempt and the reason, then holds it or hands it off.
        package mutating func schedule(
            _ notification: PushNotification, reason: RetryReason, now: Instant
        ) -> ScheduleAction {
            let policy = reason.isPerDeviceToken ? configuration.tooManyRequests : configuration.backoff
            let delay = policy.jitteredDelay(afterAttempt: notification.attempt, fraction: jitter.fraction())
            return hold(notification.retried(), until: now.advanced(by: delay), now: now)
        }

        /// Holds a notification, as it is, until `due`: for records read back from the retry topic
        /// before their due time. Beyond the bounds it is handed back to the retry topic.
        package mutating func hold(_ notification: PushNotification, until due: Instant, now: Instant) -> ScheduleAction
        {
            guard heldCount < configuration.maximumHeldNotifications,
                now.duration(to: due) <= configuration.maximumHeldDelay
            else {
                return .handOff(Batch(app: notification.job.app, due: due, notifications: [notification]))
            }
            let key = BucketKey(window: window(containing: due), app: notification.job.app)
            let previousEarliest = order.first?.window
            if buckets[key] == nil {
                order.insert(key, at: insertionIndex(of: key))
            }
            buckets[key, default: []].append(notification)
            heldCount += 1
            return .held(due: deadline(of: key.window), rearmTimer: previousEarliest.map { key.window < $0 } ?? true)
        }

        /// When the earliest held batch is due; nil when nothing is held.
        package var nextDeadline: Instant? {
            order.first.map { deadline(of: $0.window) }
        }

        /// Removes and returns every batch due at `now`, earliest first.
        package mutating func collectDue(now: Instant) -> [Batch] {
            var dueCount = 0
            while dueCount < order.count, deadline(of: order[dueCount].window) <= now { dueCount += 1 }
            return removeFirst(dueCount)
        }

        /// Removes every held notification `shouldRemove` selects (a revoked partition's) and
        /// returns them in batches with their due times; the deadlines of the buckets that remain
        /// are unchanged.
        package mutating func removeAll(where shouldRemove: (PushNotification) -> Bool) -> [Batch] {
            var removed: [Batch] = []
            for key in order {
                guard let notifications = buckets[key] else { continue }
                var kept: [PushNotification] = []
                var taken: [PushNotification] = []
                for notification in notifications {
                    if shouldRemove(notification) { taken.append(notification) } else { kept.append(notification) }
                }
                guard !taken.isEmpty else { continue }
                buckets[key] = kept.isEmpty ? nil : kept
                heldCount -= taken.count
                removed.append(Batch(app: key.app, due: deadline(of: key.window), notifications: taken))
            }
            order.removeAll { buckets[$0] == nil }
            return removed
        }

        /// Removes and returns everything held, earliest first, for the retry topic.
        package mutating func drainForShutdown() -> [Batch] {
            removeFirst(order.count)
        }

        private mutating func removeFirst(_ count: Int) -> [Batch] {
            let keys = order.prefix(count)
            var batches: [Batch] = []
            batches.reserveCapacity(count)
            for key in keys {
                let notifications = buckets.removeValue(forKey: key) ?? []
                heldCount -= notifications.count
                batches.append(Batch(app: key.app, due: deadline(of: key.window), notifications: notifications))
            }
            order.removeFirst(count)
            return batches
        }

        /// The window whose end is the first window boundary at or after `instant`.
        private func window(containing instant: Instant) -> Int64 {
            let offset = max(epoch.duration(to: instant).nanoseconds, 0)
            let (quotient, remainder) = offset.quotientAndRemainder(dividingBy: windowNanoseconds)
            return remainder == 0 ? quotient : quotient + 1
        }

        private func deadline(of window: Int64) -> Instant {
            epoch.advanced(by: .nanoseconds(window.multipliedReportingOverflow(by: windowNanoseconds).partialValue))
        }

        private func insertionIndex(of key: BucketKey) -> Int {
            var low = 0
            var high = order.count
            while low < high {
                let middle = (low + high) / 2
                if order[middle] < key { low = middle + 1 } else { high = middle }
            }
            return low
        }
    }
}
