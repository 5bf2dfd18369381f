import CRdKafka
import Testing

@testable import SalvoKafka

@Suite struct KafkaErrorTests {
    @Test func librdkafkaErrorsKeepTheirNameTextAndClass() {
        let transport = KafkaError.rdKafka(
            RD_KAFKA_RESP_ERR__TRANSPORT, context: "connect", detail: "Connection refused")
        #expect(transport.code == .brokerUnavailable)
        #expect(transport.isRetriable)
        #expect(!transport.isFatal)
        #expect(transport.rdKafkaErrorName == "_TRANSPORT")
        #expect(transport.message.contains("Connection refused"))

        let tooLarge = KafkaError.rdKafka(RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE, context: "produce")
        #expect(tooLarge.code == .messageRejected)
        #expect(!tooLarge.isRetriable)

        let fatal = KafkaError.rdKafka(
            RD_KAFKA_RESP_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER, context: "produce", isFatal: true)
        #expect(fatal.code == .fatal)
        #expect(fatal.isFatal)
        #expect(!fatal.isRetriable)

        let unknown = KafkaError.rdKafka(RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART, context: "produce")
        #expect(unknown.code == .unknownTopic)
    }

    @Test func descriptionNamesCodeAndLibraryError() {
        let error = KafkaError.rdKafka(RD_KAFKA_RESP_ERR__TIMED_OUT, context: "metadata")
        #expect(error.description.hasPrefix("KafkaError.timedOut: metadata: "))
        #expect(error.description.hasSuffix("[_TIMED_OUT]"))
    }
}
