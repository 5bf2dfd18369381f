/// The entry points the fuzzers drive and the corpus replay test feeds: one per kind of hostile
/// input a Salvo process reads from the network, a file or a message.
///
/// Each takes arbitrary bytes and either returns (the input was handled: accepted or refused with
/// an error) or reports a ``FuzzFinding`` when a property that must hold for every input did not.
/// A trap inside is a crash. `Fuzz/` builds them into libFuzzer binaries (`make fuzz`); the
/// committed corpus (`Fuzz/Corpus/<rawValue>/`) is replayed by `SalvoFuzzingTests` in `make test`.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// A Kafka message as the worker's job decoder reads it.
    case jobDecoder = "job-decoder"
    /// An APNs answer as the client reads it: status, `apns-id` header and error body.
    case apnsResponse = "apns-response"
    /// A request as the mock APNs validates it: method, path, header fields, body size.
    case mockRequest = "mock-request"
    /// A mock scenario file (YAML or JSON).
    case mockScenario = "mock-scenario"
    /// A worker configuration file (YAML), loaded as `--check-config` loads it.
    case workerConfiguration = "worker-configuration"

    /// Runs one input. Throws a finding when an invariant fails; traps only on a bug.
    public func run(_ bytes: [UInt8]) throws(FuzzFinding) {
        switch self {
        case .jobDecoder: try JobDecoderFuzzing.run(bytes)
        case .apnsResponse: try APNsResponseFuzzing.run(bytes)
        case .mockRequest: MockRequestFuzzing.run(bytes)
        case .mockScenario: try MockScenarioFuzzing.run(bytes)
        case .workerConfiguration: WorkerConfigurationFuzzing.run(bytes)
        }
    }

    /// Whether a worker-configuration input loads, credentials included: the seeds that should
    /// must, or the fuzzer would never get past the credential files.
    public static func workerConfigurationLoads(_ bytes: [UInt8]) -> Bool {
        WorkerConfigurationFuzzing.load(bytes) != nil
    }
}

/// A property that must hold for every input and did not for this one.
public struct FuzzFinding: Error, CustomStringConvertible {
    public var description: String

    init(_ description: String) {
        self.description = description
    }
}
