import Logging

/// Rate-limits repeated log lines: the first occurrence of a kind of message is written, later
/// ones are counted, and at most one line per ``interval`` and kind says how many were left out.
///
/// A failure that repeats while it lasts (a broker away, a record Kafka refuses) would otherwise
/// write a line per attempt: a broker outage wrote 84 lines a second. The first line keeps its
/// level and text, so the start of an incident stays visible; the count says it went on.
///
/// A value type without a lock: keep it where its owner already runs (a poll loop's thread, an
/// event loop) and pass that owner's clock's `now`. Generic over the clock so tests drive time.
///
/// Keys name a *kind* of message (a librdkafka facility, an error name, "record not
/// acknowledged"), never free text such as a broker's answer: the table holds one entry per key
/// that was heard within the last interval, and forgets kinds that went quiet.
public struct LogThrottle<C: Clock>: Sendable where C.Duration == Duration {
    /// What to do with one occurrence.
    public enum Decision: Equatable, Sendable {
        /// Write it: the first of its kind, or the first since the kind went quiet.
        case log
        /// Write it, and say that `suppressed` more of its kind were left out since the last line.
        case logWithSuppressed(Int)
        /// Leave it out; it is counted for the next line of its kind.
        case suppress

        /// The metadata to write this occurrence with, or nil to leave it out: `base`, plus
        /// `suppressed` (the count left out since the previous line of its kind) when there is one.
        public func metadata(_ base: Logger.Metadata = [:]) -> Logger.Metadata? {
            switch self {
            case .log: base
            case .logWithSuppressed(let count): base.merging(["suppressed": "\(count)"]) { _, count in count }
            case .suppress: nil
            }
        }
    }

    /// Occurrences of one kind left out during an interval that has now passed, so that the
    /// count of a storm is written even when no further occurrence arrives to carry it.
    public struct Summary: Equatable, Sendable {
        public var key: String
        /// How many were left out since the last line of this kind.
        public var suppressed: Int
        /// The most severe level among them: the level to write the summary at.
        public var level: Logger.Level
        /// The detail passed with the latest left-out occurrence, if any.
        public var lastDetail: String?
        /// How long ago the last line of this kind was written.
        public var since: Duration

        public init(key: String, suppressed: Int, level: Logger.Level, lastDetail: String?, since: Duration) {
            self.key = key
            self.suppressed = suppressed
            self.level = level
            self.lastDetail = lastDetail
            self.since = since
        }
    }

    private struct Kind: Sendable {
        /// When the last line of this kind was written (the occurrence or its summary).
        var lastLine: C.Instant
        var suppressed = 0
        var level = Logger.Level.trace
        var lastDetail: String?
    }

    /// At most one line per kind in this time.
    public let interval: Duration
    private var kinds: [String: Kind] = [:]

    /// - Parameter interval: At most one line per kind in this time. Default: 10 s.
    public init(interval: Duration = .seconds(10)) {
        self.interval = interval
    }

    /// Decides about one occurrence of `key` at `now`. Its `level` and `detail` (the error text,
    /// say) are kept for a later ``Summary`` if the occurrence is left out.
    public mutating func shouldLog(
        _ key: String, level: Logger.Level = .warning, detail: String? = nil, now: C.Instant
    ) -> Decision {
        guard var kind = kinds[key] else {
            kinds[key] = Kind(lastLine: now)
            return .log
        }
        guard kind.lastLine.duration(to: now) >= interval else {
            kind.suppressed += 1
            kind.level = max(kind.level, level)
            kind.lastDetail = detail
            kinds[key] = kind
            return .suppress
        }
        let suppressed = kind.suppressed
        kinds[key] = Kind(lastLine: now)
        return suppressed == 0 ? .log : .logWithSuppressed(suppressed)
    }

    /// Kinds whose interval has passed with occurrences left out: the caller writes one line for
    /// each, which starts a new interval. Kinds quiet for a whole interval are forgotten, so their
    /// next occurrence is written at once. Call it now and then (a loop's tick); between calls the
    /// counts simply wait.
    public mutating func dueSummaries(now: C.Instant) -> [Summary] {
        var due: [Summary] = []
        for (key, kind) in kinds {
            let elapsed = kind.lastLine.duration(to: now)
            guard elapsed >= interval else { continue }
            if kind.suppressed == 0 {
                kinds[key] = nil
            } else {
                due.append(
                    Summary(
                        key: key, suppressed: kind.suppressed, level: kind.level, lastDetail: kind.lastDetail,
                        since: elapsed))
                kinds[key] = Kind(lastLine: now)
            }
        }
        return due.sorted { $0.key < $1.key }
    }

    /// How many kinds are remembered (heard within about the last interval).
    public var trackedKinds: Int { kinds.count }

    /// The pending counts of every kind, due or not, for an owner about to stop: nothing that was
    /// left out goes unsaid.
    public mutating func remainingSummaries(now: C.Instant) -> [Summary] {
        let remaining = kinds.filter { $0.value.suppressed > 0 }.map { key, kind in
            Summary(
                key: key, suppressed: kind.suppressed, level: kind.level, lastDetail: kind.lastDetail,
                since: kind.lastLine.duration(to: now))
        }
        kinds.removeAll()
        return remaining.sorted { $0.key < $1.key }
    }
}

extension Logger {
    /// Writes one summary of lines a ``LogThrottle`` left out, at the most severe level among them.
    public func log<C: Clock>(_ summary: LogThrottle<C>.Summary) {
        log(
            level: summary.level,
            "\(summary.key): \(summary.suppressed) more like it in the last \(summary.since.components.seconds) s",
            metadata: ["suppressed": "\(summary.suppressed)", "last": "\(summary.lastDetail ?? "")"])
    }
}
