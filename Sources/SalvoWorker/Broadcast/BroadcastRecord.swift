import NIOCore

/// A broadcast job as intake hands it to the core: the decoded job with the Kafka message it came
/// from, which its dead letter carries whole (so it can be republished once the cause is fixed).
struct BroadcastRecord: Sendable {
    var job: BroadcastJob
    var message: ByteBuffer
}
