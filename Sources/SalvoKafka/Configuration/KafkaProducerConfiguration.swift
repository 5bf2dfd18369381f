/// Settings of a `KafkaProducer`.
///
/// Idempotence is on by default, which makes librdkafka use `acks=all`, one in-flight sequence
/// per partition and retries without duplicates or reordering: what "nothing lost" needs.
/// The local queue is bounded (`queueMaxMessages`, `queueMaxKilobytes`); when it is full,
/// `send` and `enqueue` wait for room instead of failing.
public struct KafkaProducerConfiguration: Sendable, Hashable {
    public var client: KafkaClientConfiguration
    /// Default: `true` (implies acks=all).
    public var idempotent: Bool
    /// How long librdkafka waits to fill a batch (`linger.ms`). Default: 5 ms.
    public var linger: Duration
    /// Most messages per batch (`batch.num.messages`). Default: 10,000.
    public var batchMaxMessages: Int
    /// Most bytes per batch (`batch.size`). Default: 1,000,000.
    public var batchMaxBytes: Int
    /// Default: `.none`; `.lz4` is the usual choice when network matters more than CPU.
    public var compression: KafkaCompression
    /// Messages queued locally before producers wait (`queue.buffering.max.messages`). Default: 100,000.
    public var queueMaxMessages: Int
    /// KiB queued locally before producers wait (`queue.buffering.max.kbytes`). Default: 65,536 (64 MiB).
    public var queueMaxKilobytes: Int
    /// How long librdkafka keeps trying to deliver one message before reporting it failed
    /// (`message.timeout.ms`). Default: 120 s.
    public var deliveryTimeout: Duration
    /// Largest record accepted (`message.max.bytes`). Default: 1,000,000.
    public var messageMaxBytes: Int
    /// Raw librdkafka properties for producers only, applied after `client.properties`.
    /// Default: empty.
    public var properties: [String: String] = [:]

    public init(client: KafkaClientConfiguration) {
        self.client = client
        self.idempotent = true
        self.linger = .milliseconds(5)
        self.batchMaxMessages = 10_000
        self.batchMaxBytes = 1_000_000
        self.compression = .none
        self.queueMaxMessages = 100_000
        self.queueMaxKilobytes = 65_536
        self.deliveryTimeout = .seconds(120)
        self.messageMaxBytes = 1_000_000
    }

    /// The one validation place for producer settings.
    func validate() throws(KafkaError) {
        try client.validate()
        guard linger >= .zero else { throw .configuration("linger must not be negative") }
        guard batchMaxMessages >= 1 else { throw .configuration("batch must allow at least 1 message") }
        guard batchMaxBytes >= 1 else { throw .configuration("batch size must be positive") }
        guard queueMaxMessages >= 1 else { throw .configuration("queue must allow at least 1 message") }
        guard queueMaxKilobytes >= 1 else { throw .configuration("queue bound must be at least 1 KiB") }
        guard deliveryTimeout >= .milliseconds(1) else { throw .configuration("delivery timeout must be positive") }
        guard messageMaxBytes >= 1_000 else { throw .configuration("message.max.bytes must be at least 1000") }
    }
}
