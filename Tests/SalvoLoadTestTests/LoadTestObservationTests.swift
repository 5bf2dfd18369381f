import SalvoKafka
import Testing

@testable import SalvoLoadTest

@Suite("Reading the worker's outputs")
struct LoadTestObservationTests {
    @Test("consumer lag is the sum of every salvo_consumer_lag sample, other metrics ignored")
    func prometheusLag() {
        let text = """
            # HELP salvo_consumer_lag Records behind the high watermark.
            # TYPE salvo_consumer_lag gauge
            salvo_consumer_lag{topic="salvo.jobs",partition="0"} 120
            salvo_consumer_lag{topic="salvo.jobs",partition="1"} 30
            salvo_consumer_lag_seconds 9
            salvo_sent_total 5
            """
        #expect(LoadTestHTTP.sum(of: "salvo_consumer_lag", in: text) == 150)
        #expect(LoadTestHTTP.sum(of: "salvo_missing", in: text) == nil)
    }

    @Test("a dead letter belongs to the run by key, by salvo-job-id, or by its bytes when it has no id")
    func deadLetterOwnership() {
        func message(key: String?, headers: [KafkaHeader] = [], value: String) -> KafkaConsumerMessage {
            KafkaConsumerMessage(
                topicPartition: KafkaTopicPartition(topic: "dlq", partition: 0), offset: 0,
                key: key.map { Array($0.utf8) },
                value: Array(value.utf8), headers: headers, timestampMilliseconds: nil)
        }
        #expect(LoadTestTopicReader.belongs(message(key: "lt-a-3", value: "{}"), runID: "lt-a"))
        #expect(
            LoadTestTopicReader.belongs(
                message(key: nil, headers: [KafkaHeader(key: "salvo-job-id", value: "lt-a-9")], value: "x"),
                runID: "lt-a"))
        #expect(LoadTestTopicReader.belongs(message(key: nil, value: #"{"id":"lt-a-7","app":"#), runID: "lt-a"))
        #expect(!LoadTestTopicReader.belongs(message(key: "lt-ab-3", value: #"{"id":"lt-ab-3"}"#), runID: "lt-a"))
    }

    @Test("feedback events are read by token, reason and job id; anything else is skipped")
    func feedbackEvents() {
        let event = LoadTestTopicReader.feedbackEvent(
            Array(#"{"token":"abcd","reason":"Unregistered","status":410,"job_id":"lt-a-1"}"#.utf8))
        #expect(event?.token == "abcd" && event?.reason == "Unregistered" && event?.jobID == "lt-a-1")
        #expect(LoadTestTopicReader.feedbackEvent(Array(#"{"token":"abcd"}"#.utf8)) == nil)
        #expect(LoadTestTopicReader.feedbackEvent(Array("not json".utf8)) == nil)
    }
}
