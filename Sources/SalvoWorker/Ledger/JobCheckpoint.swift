import SalvoAPNs
import SalvoPrimitives

/// How far a partly sent job got: its first `done` notifications are done (answered, and their
/// records acknowledged), so a worker that reads the job again — after a crash or a lost
/// assignment — starts it at notification `done` instead of its first.
///
/// Kafka's offset commit carries a metadata string for this, but Tansu (the test broker) and other
/// Kafka-compatible services drop it, so checkpoints go to a compacted topic every broker keeps
/// (`topics.progress`, default `salvo.progress`; docs/jobs.md "Checkpoints"), one key per consumer
/// group and partition: only the partition's lowest open job (the one its commit waits for) is
/// recorded, and a later record replaces it. A checkpoint applies only to the job it names
/// (offset and job id both match): a stale or lost one costs duplicates, never a notification.
///
/// Value, version 1: `{"version":1,"topic":T,"partition":P,"offset":O,"job_id":ID,"done":K}`;
/// key: `<group>|<topic>|<partition>`.
package struct JobCheckpoint: Sendable, Hashable {
    package static let schemaVersion = 1

    package var topic: String
    package var partition: Int32
    /// The job's offset in its partition.
    package var offset: Int64
    package var jobID: String
    /// Notifications done from the job's first on (indexes among its valid tokens).
    package var done: Int

    package init(topic: String, partition: Int32, offset: Int64, jobID: String, done: Int) {
        self.topic = topic
        self.partition = partition
        self.offset = offset
        self.jobID = jobID
        self.done = done
    }

    /// The partition the checkpoint is filed under.
    var partitionKey: SourcePosition.Partition { SourcePosition.Partition(topic: topic, partition: partition) }

    /// The record key for consumer group `group`.
    package static func key(group: String, topic: String, partition: Int32) -> [UInt8] {
        Array("\(group)|\(topic)|\(partition)".utf8)
    }

    package func record(group: String) -> OutgoingRecord {
        var writer = JSONWriter(capacity: 96 + topic.utf8.count + jobID.utf8.count)
        writer.beginObject()
        writer.member("version", Self.schemaVersion)
        writer.member("topic", topic)
        writer.member("partition", partition)
        writer.member("offset", offset)
        writer.member("job_id", jobID)
        writer.member("done", done)
        writer.endObject()
        return OutgoingRecord(key: Self.key(group: group, topic: topic, partition: partition), value: writer.bytes)
    }

    /// Reads a record of consumer group `group`; nil for another group's, a tombstone, or a
    /// record that does not parse (logged by the caller's count, never fatal: it only costs
    /// duplicates).
    package static func decode(key: [UInt8]?, value: [UInt8]?, group: String) -> JobCheckpoint? {
        guard let key, let value, let keyText = String(validating: key, as: UTF8.self),
            keyText.hasPrefix(group + "|")
        else { return nil }
        let what = "checkpoint"
        guard let object = try? CampaignRecordJSON.object(value, what: what),
            (try? CampaignRecordJSON.version(object, what: what)) != nil,
            let topic = try? CampaignRecordJSON.string(object, "topic", what: what),
            let partition = try? CampaignRecordJSON.integer(object, "partition", what: what),
            let offset = try? CampaignRecordJSON.integer(object, "offset", what: what),
            let jobID = try? CampaignRecordJSON.string(object, "job_id", what: what),
            let done = try? CampaignRecordJSON.integer(object, "done", what: what),
            let partition32 = Int32(exactly: partition), done > 0, offset >= 0,
            keyText == "\(group)|\(topic)|\(partition32)"
        else { return nil }
        return JobCheckpoint(topic: topic, partition: partition32, offset: offset, jobID: jobID, done: Int(done))
    }
}
