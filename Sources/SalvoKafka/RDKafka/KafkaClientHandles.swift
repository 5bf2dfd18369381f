import Synchronization

/// How many librdkafka handles are alive, by client id: one is counted from its creation until
/// its loop thread destroyed it. For tests that check a component closed every Kafka client it
/// made (producers, consumers, topic readers, admin clients), including the short-lived ones,
/// without reaching into the component: give it a client id of its own and read the count.
package enum KafkaClientHandles {
    private static let counts = Mutex<[String: Int]>([:])

    /// Handles alive now whose client id starts with `prefix` (a follower's reader, for example,
    /// adds a suffix to the configured id).
    package static func live(clientIDPrefix prefix: String) -> Int {
        counts.withLock { counts in
            counts.reduce(0) { total, entry in entry.key.hasPrefix(prefix) ? total + entry.value : total }
        }
    }

    static func created(clientID: String) {
        counts.withLock { $0[clientID, default: 0] += 1 }
    }

    static func destroyed(clientID: String) {
        counts.withLock { counts in
            let remaining = (counts[clientID] ?? 1) - 1
            counts[clientID] = remaining > 0 ? remaining : nil
        }
    }
}
