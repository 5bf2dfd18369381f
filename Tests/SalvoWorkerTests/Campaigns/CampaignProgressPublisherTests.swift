import SalvoKafka
import SalvoWorker
import Synchronization
import Testing

/// What the publisher does when Kafka refuses its records: they wait for the next round, the
/// newest record per key replacing an older one (never both).
@Suite struct CampaignProgressPublisherTests {
    private final class Worker: Sendable {
        let ledger = Mutex(CampaignProgressLedger(worker: "w"))
    }

    @Test func recordsThatFailedWaitForTheNextRoundNewestPerKey() async throws {
        // A producer that was shut down refuses every record at once (no broker needed).
        let producer = try KafkaProducer(
            configuration: KafkaProducerConfiguration(client: KafkaClientConfiguration(brokers: ["127.0.0.1:1"])),
            logger: EngineKafka.logger)
        await producer.shutdown(timeout: .milliseconds(10))
        let worker = Worker()
        let publisher = CampaignProgressPublisher(
            topic: "progress-unused", producer: producer, logger: EngineKafka.logger
        ) { now in
            worker.ledger.withLock { $0.takeChangedRecords(now: now) }
        }
        worker.ledger.withLock { ledger in
            ledger.count(.accepted, campaignID: "spring", times: 3, at: .now())
            ledger.count(.accepted, campaignID: "summer", at: .now())
        }
        #expect(await publisher.publishOnce() == 0)
        #expect(publisher.unsentCount == 2)
        worker.ledger.withLock { $0.count(.cancelled, campaignID: "spring", at: .now()) }
        #expect(await publisher.publishOnce() == 0)
        #expect(publisher.unsentCount == 2, "spring's newer record replaced the older one")
        #expect(await publisher.publishOnce() == 0)
        #expect(publisher.unsentCount == 2, "kept while the writes keep failing, without any new count")
    }
}
