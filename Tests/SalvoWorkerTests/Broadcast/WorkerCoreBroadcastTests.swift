import NIOCore
import NIOEmbedded
import SalvoAPNs
import SalvoKafka
import Synchronization
import Testing

@testable import SalvoWorker

/// Broadcasts the test answers by hand: every send is kept with its answer callback.
final class ScriptedBroadcasts: Sendable {
    private let sent = Mutex<[(job: BroadcastJob, answer: BroadcastDispatch.Answer)]>([])
    private let total = Mutex(0)

    var send: BroadcastDispatch.Send {
        { job, answer in
            self.sent.withLock { $0.append((job, answer)) }
            self.total.withLock { $0 += 1 }
        }
    }

    /// Sends ever made.
    var count: Int { total.withLock { $0 } }

    /// Answers the oldest send waiting with `result`.
    func answerFirst(_ result: Result<APNsChannelResponse, APNsError>) {
        let first = sent.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        first?.answer(result)
    }

    /// Answers every send waiting with `result`; returns the jobs answered.
    @discardableResult
    func answerAll(_ result: Result<APNsChannelResponse, APNsError>) -> [BroadcastJob] {
        let waiting = sent.withLock { sent in
            defer { sent = [] }
            return sent
        }
        for item in waiting { item.answer(result) }
        return waiting.map(\.job)
    }
}

/// The core's broadcast path on the embedded loop: the ledger entry of one broadcast,
/// in-memory retries bounded by `max_attempts`, the dead letter and channel event of
/// `ChannelNotRegistered`, and a drain that waits for a broadcast in flight but not for one
/// waiting for its retry.
@Suite("WorkerCore sends broadcast jobs")
struct WorkerCoreBroadcastTests {
    static let channel = "dGVzdC1jaGFubmVsLTAwMQ=="

    static func job(_ id: String) -> String {
        #"{"id":"\#(id)","app":"news","channel_id":"\#(channel)","payload":{"aps":{"event":"update","timestamp":1,"content-state":{}}}}"#
    }

    static let unavailable = Result<APNsChannelResponse, APNsError>.success(
        APNsChannelResponse(status: 503, reason: .serviceUnavailable))
    static let delivered = Result<APNsChannelResponse, APNsError>.success(
        APNsChannelResponse(status: 200, requestID: "r"))

    static func harness(maximumAttempts: Int = 5) throws -> (CoreHarness, ScriptedBroadcasts) {
        let harness = try CoreHarness { $0.outcomes.maximumAttempts = maximumAttempts }
        let broadcasts = ScriptedBroadcasts()
        harness.core.broadcasts.send = broadcasts.send
        return (harness, broadcasts)
    }

    @Test("a 503 is sent again after the backoff, from memory; the offset commits only once it is delivered")
    func retriedThenDelivered() throws {
        let (harness, broadcasts) = try Self.harness()
        harness.consume([Self.job("b1")])
        #expect(broadcasts.count == 1)
        #expect(harness.pool.submittedCount == 0, "not through the device pools")
        broadcasts.answerAll(Self.unavailable)
        harness.loop.run()
        #expect(harness.committed.isEmpty)
        #expect(harness.published.isEmpty, "nothing to the retry topic")
        // retry.backoff starts at 500 ms (jittered to 250–500 ms).
        harness.advance(by: .milliseconds(200))
        #expect(broadcasts.count == 1)
        harness.advance(by: .milliseconds(400))
        #expect(broadcasts.count == 2)
        broadcasts.answerAll(Self.delivered)
        harness.loop.run()
        #expect(harness.committed.map(\.offset) == [0])
    }

    @Test("retries end at max_attempts with a retries_exhausted dead letter of the job's message")
    func retriesExhausted() throws {
        let (harness, broadcasts) = try Self.harness(maximumAttempts: 2)
        harness.consume([Self.job("b2")])
        broadcasts.answerAll(Self.unavailable)
        harness.loop.run()
        harness.advance(by: .seconds(1))
        broadcasts.answerAll(Self.unavailable)
        harness.loop.run()
        #expect(broadcasts.count == 2)
        let published = harness.published
        #expect(published.map(\.kind) == [.deadLetter])
        let reason = published.first?.record.headers.first { $0.name == "salvo-reason" }
        #expect(reason.map { String(decoding: $0.value, as: UTF8.self) } == DeadLetterReason.retriesExhaustedCode)
        #expect(
            published.first?.record.value == Array(Self.job("b2").utf8), "the dead letter carries the job as produced")
        #expect(harness.committed.isEmpty, "not before Kafka acknowledged the dead letter")
        harness.acknowledgeRecords()
        #expect(harness.committed.map(\.offset) == [0])
        harness.advance(by: .seconds(5))
        #expect(broadcasts.count == 2)
    }

    @Test("ChannelNotRegistered: a dead letter and a channel event keyed by the channel, then the offset commits")
    func channelNotRegistered() throws {
        let (harness, broadcasts) = try Self.harness()
        harness.consume([Self.job("b3")])
        broadcasts.answerAll(.success(APNsChannelResponse(status: 400, requestID: "r", reason: .channelNotRegistered)))
        harness.loop.run()
        let published = harness.published
        #expect(published.map(\.kind) == [.deadLetter, .feedback])
        let feedback = published.first { $0.kind == .feedback }
        #expect(feedback?.topic == CoreHarness.topics.feedback)
        #expect(feedback?.record.key == Array(Self.channel.utf8))
        #expect(harness.committed.isEmpty)
        harness.acknowledgeRecords()
        #expect(harness.committed.map(\.offset) == [0])
    }

    @Test(
        "a drain waits for a broadcast in flight; one waiting for its retry is given up, uncommitted, for the next owner"
    )
    func drain() throws {
        let (harness, broadcasts) = try Self.harness()
        harness.consume([Self.job("waiting"), Self.job("in-flight")])
        #expect(broadcasts.count == 2)
        broadcasts.answerFirst(Self.unavailable)
        harness.loop.run()
        let promise = harness.loop.makePromise(of: Void.self)
        let drained = Mutex(false)
        promise.futureResult.whenSuccess { drained.withLock { $0 = true } }
        harness.core.beginDrain(within: .seconds(60), promise: promise)
        harness.loop.run()
        #expect(!drained.withLock { $0 }, "a broadcast in flight: the drain waits")
        broadcasts.answerFirst(Self.delivered)
        harness.loop.run()
        #expect(drained.withLock { $0 })
        harness.advance(by: .seconds(2))
        #expect(broadcasts.count == 2, "nothing is sent again once the drain began")
        #expect(harness.committed.map(\.offset) == [1], "the waiting one (offset 0) is left to the next owner")
        #expect(harness.published.isEmpty)
    }

    @Test("a revoke waits for a broadcast in flight and gives up one waiting for its retry within the recheck interval")
    func revoke() throws {
        let (harness, broadcasts) = try Self.harness()
        harness.consume([Self.job("waiting"), Self.job("in-flight")])
        broadcasts.answerFirst(Self.unavailable)
        harness.loop.run()
        let finished = Mutex(false)
        harness.core.revoking([SourcePosition.Partition(topic: CoreHarness.topics.jobs, partition: 0)]) {
            finished.withLock { $0 = true }
        }
        harness.advance(by: .milliseconds(10))
        #expect(!finished.withLock { $0 }, "one broadcast in flight")
        broadcasts.answerFirst(Self.delivered)
        harness.loop.run()
        harness.advance(by: .milliseconds(300))
        #expect(finished.withLock { $0 }, "the waiting one was given up")
        harness.advance(by: .seconds(2))
        #expect(broadcasts.count == 2, "and not sent again here")
        #expect(harness.committed.map(\.offset) == [1])
    }

    @Test("campaign control: a paused campaign's broadcast waits until resumed; a cancelled one's completes unsent")
    func campaignControl() throws {
        let (harness, broadcasts) = try Self.harness()
        func job(_ id: String, campaign: String) -> String {
            #"{"campaign_id":"\#(campaign)","# + Self.job(id).dropFirst()
        }
        let at = { (millis: Int64) in UTCTimestamp(millisecondsSince1970: millis) }
        var state = CampaignControlState()
        state.apply(CampaignCommand(campaignID: "spring", action: .pause, by: "test", at: at(1_000)))
        state.apply(CampaignCommand(campaignID: "autumn", action: .cancel, by: "test", at: at(1_001)))
        harness.core.controlChanged(state)
        harness.consume([job("paused", campaign: "spring"), job("cancelled", campaign: "autumn")])
        harness.advance(by: .seconds(2))
        #expect(broadcasts.count == 0)
        #expect(harness.committed.map(\.offset) == [1], "the cancelled one completes unsent")
        #expect(harness.core.campaigns.counters(for: "autumn")?.cancelled == 1)
        state.apply(CampaignCommand(campaignID: "spring", action: .resume, by: "test", at: at(2_000)))
        harness.core.controlChanged(state)
        harness.advance(by: .milliseconds(300))
        #expect(broadcasts.count == 1, "sent once resumed")
        broadcasts.answerAll(Self.delivered)
        harness.loop.run()
        #expect(harness.committed.map(\.offset) == [1, 0])
        #expect(harness.core.campaigns.counters(for: "spring")?.accepted == 1)
    }
}
