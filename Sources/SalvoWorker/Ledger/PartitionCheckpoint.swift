import SalvoAPNs
import SalvoKafka
import SalvoPrimitives

/// How far a worker got with one partition: which offsets above the committed one are complete,
/// and how far each open job of several tokens got (``JobCheckpoint``). A worker that reads the
/// partition again — after a crash, a lost assignment or a commit that failed — completes the
/// complete offsets without sending and sends only the rest of each open job.
///
/// Kafka's offset commit carries a metadata string for this, but Tansu (the test broker) and other
/// Kafka-compatible services drop it, so checkpoints go to a compacted topic every broker keeps
/// (`topics.progress`, default `salvo.progress`; docs/jobs.md "Checkpoints"), one key per consumer
/// group and partition; a later record replaces an earlier one.
///
/// Value, version 2 (`schema/checkpoint.schema.json`):
/// `{"version":2,"topic":T,"partition":P,"written_at_ms":W,"from":F,"to":E,"open":[O…],
/// "jobs":[{"offset":O,"job_id":ID,"done":[[A,B]…]}…]}`: every offset in `from..<to` that is not
/// in `open` is complete; `from`, `to` and `open` are absent when unknown. Version 1 records
/// (one job's done prefix) are still read. Key: `<group>|<topic>|<partition>`.
package struct PartitionCheckpoint: Sendable, Hashable {
    package static let schemaVersion = 2

    /// The offsets a worker had read from a partition: all of `from..<to` except `open` are
    /// complete (its consumer's ``KafkaPartitionProgress``).
    package typealias Offsets = KafkaPartitionProgress

    package var topic: String
    package var partition: Int32
    package var offsets: Offsets?
    /// Open jobs with done notifications, ascending by offset.
    package var jobs: [JobCheckpoint]
    /// When it was written (milliseconds since 1970): a record newer than that was produced after
    /// it, so it cannot be one of its complete offsets (a topic deleted and made again).
    package var writtenAtMilliseconds: Int64

    package init(
        topic: String, partition: Int32, offsets: Offsets? = nil, jobs: [JobCheckpoint] = [],
        writtenAtMilliseconds: Int64
    ) {
        self.topic = topic
        self.partition = partition
        self.offsets = offsets
        self.jobs = jobs
        self.writtenAtMilliseconds = writtenAtMilliseconds
    }

    /// The partition the checkpoint is filed under.
    var partitionKey: SourcePosition.Partition { SourcePosition.Partition(topic: topic, partition: partition) }

    /// Whether it records what `other` records (its time aside).
    package func hasSameProgress(as other: PartitionCheckpoint) -> Bool {
        offsets == other.offsets && jobs == other.jobs && topic == other.topic && partition == other.partition
    }

    /// Whether the record at `offset`, produced at `timestampMilliseconds`, was complete when this
    /// was written. A record without a timestamp is never taken as complete.
    package func completes(_ offset: Int64, timestampMilliseconds: Int64?) -> Bool {
        guard let offsets, let timestampMilliseconds, timestampMilliseconds <= writtenAtMilliseconds else {
            return false
        }
        return offsets.isDone(offset)
    }

    /// The checkpoint of the job at `offset` with id `jobID`, if this records one.
    package func job(at offset: Int64, id jobID: String) -> JobCheckpoint? {
        jobs.first { $0.offset == offset && $0.jobID == jobID }
    }

    /// The record key for consumer group `group`.
    package static func key(group: String, topic: String, partition: Int32) -> [UInt8] {
        Array("\(group)|\(topic)|\(partition)".utf8)
    }

    package func record(group: String) -> OutgoingRecord {
        var writer = JSONWriter(capacity: 128 + topic.utf8.count + (offsets?.open.count ?? 0) * 12 + jobs.count * 96)
        writer.beginObject()
        writer.member("version", Self.schemaVersion)
        writer.member("topic", topic)
        writer.member("partition", partition)
        writer.member("written_at_ms", writtenAtMilliseconds)
        if let offsets {
            writer.member("from", offsets.from)
            writer.member("to", offsets.to)
            writer.key("open")
            writer.beginArray()
            for offset in offsets.open { writer.integer(offset) }
            writer.endArray()
        }
        writer.key("jobs")
        writer.beginArray()
        for job in jobs {
            writer.beginObject()
            writer.member("offset", job.offset)
            writer.member("job_id", job.jobID)
            writer.key("done")
            writer.beginArray()
            for range in job.done {
                writer.beginArray()
                writer.integer(range.lowerBound)
                writer.integer(range.upperBound)
                writer.endArray()
            }
            writer.endArray()
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return OutgoingRecord(key: Self.key(group: group, topic: topic, partition: partition), value: writer.bytes)
    }

    /// Reads a record of consumer group `group`; nil for another group's, a tombstone, or a
    /// record that does not parse (never fatal: it only costs duplicates).
    package static func decode(key: [UInt8]?, value: [UInt8]?, group: String) -> PartitionCheckpoint? {
        guard let key, let value, let keyText = String(validating: key, as: UTF8.self),
            keyText.hasPrefix(group + "|")
        else { return nil }
        let what = "checkpoint"
        guard let object = try? CampaignRecordJSON.object(value, what: what),
            let version = try? CampaignRecordJSON.version(object, what: what),
            let topic = try? CampaignRecordJSON.string(object, "topic", what: what),
            let partition = (try? CampaignRecordJSON.integer(object, "partition", what: what)).flatMap(
                Int32.init(exactly:)),
            keyText == "\(group)|\(topic)|\(partition)"
        else { return nil }
        if version == 1 { return decodeVersion1(object, topic: topic, partition: partition) }
        guard let written = try? CampaignRecordJSON.integer(object, "written_at_ms", what: what),
            let jobList = object["jobs"] as? [Any]
        else { return nil }
        var jobs: [JobCheckpoint] = []
        for entry in jobList {
            guard let job = decodeJob(entry) else { return nil }
            jobs.append(job)
        }
        var offsets: Offsets?
        if object["from"] != nil || object["to"] != nil || object["open"] != nil {
            guard let from = try? CampaignRecordJSON.integer(object, "from", what: what),
                let to = try? CampaignRecordJSON.integer(object, "to", what: what), from >= 0, to >= from,
                let openList = object["open"] as? [Any]
            else { return nil }
            let open = openList.compactMap(CampaignRecordJSON.integer)
            guard open.count == openList.count, open == open.sorted(), open.allSatisfy({ $0 >= from && $0 < to })
            else { return nil }
            offsets = Offsets(from: from, to: to, open: open)
        }
        return PartitionCheckpoint(
            topic: topic, partition: partition, offsets: offsets, jobs: jobs, writtenAtMilliseconds: written)
    }

    /// `{"offset":O,"job_id":ID,"done":[[A,B]…]}` with ascending, disjoint, non-empty ranges.
    private static func decodeJob(_ entry: Any) -> JobCheckpoint? {
        let what = "checkpoint job"
        guard let object = entry as? [String: Any],
            let offset = try? CampaignRecordJSON.integer(object, "offset", what: what), offset >= 0,
            let jobID = try? CampaignRecordJSON.string(object, "job_id", what: what),
            let pairs = object["done"] as? [Any]
        else { return nil }
        var done: [Range<Int>] = []
        for pair in pairs {
            guard let bounds = pair as? [Any], bounds.count == 2,
                let lower = CampaignRecordJSON.integer(bounds[0]).flatMap(Int.init(exactly:)),
                let upper = CampaignRecordJSON.integer(bounds[1]).flatMap(Int.init(exactly:)),
                lower >= (done.last?.upperBound ?? 0), upper > lower
            else { return nil }
            done.append(lower..<upper)
        }
        return JobCheckpoint(offset: offset, jobID: jobID, done: done)
    }

    /// Version 1: the done prefix of the partition's lowest open job, and nothing of its offsets.
    private static func decodeVersion1(_ object: [String: Any], topic: String, partition: Int32) -> PartitionCheckpoint?
    {
        let what = "checkpoint"
        guard let offset = try? CampaignRecordJSON.integer(object, "offset", what: what),
            let jobID = try? CampaignRecordJSON.string(object, "job_id", what: what),
            let done = (try? CampaignRecordJSON.integer(object, "done", what: what)).flatMap(Int.init(exactly:)),
            done > 0, offset >= 0
        else { return nil }
        return PartitionCheckpoint(
            topic: topic, partition: partition, jobs: [JobCheckpoint(offset: offset, jobID: jobID, done: [0..<done])],
            writtenAtMilliseconds: 0)
    }
}
