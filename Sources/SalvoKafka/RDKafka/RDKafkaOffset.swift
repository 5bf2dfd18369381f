import CRdKafka

/// librdkafka's logical start offsets under Swift names. The consumer code that plans where
/// partitions start decides with them but makes no C call, so it stays out of the C module.
enum RDKafkaOffset {
    /// The partition's oldest record (`RD_KAFKA_OFFSET_BEGINNING`).
    static let beginning = Int64(RD_KAFKA_OFFSET_BEGINNING)
    /// After the partition's newest record (`RD_KAFKA_OFFSET_END`).
    static let end = Int64(RD_KAFKA_OFFSET_END)
}
