import Testing

@testable import SalvoWorker

/// `log_format`: the file chooses, `SALVO_LOG_FORMAT` overrides, a typo fails at start.
@Suite("Configuration: log_format")
struct LogFormatConfigurationTests {
    private func load(_ top: String, environment: [String: String] = [:]) throws -> LoadedWorkerConfiguration {
        let fixture = try ConfigurationFixture()
        defer { fixture.remove() }
        return try WorkerConfigurationLoader(environment: environment).load(
            yaml: fixture.minimalYAML(top: top), source: "worker.yaml")
    }

    @Test("text by default, json from the file, SALVO_LOG_FORMAT over the file")
    func precedence() throws {
        #expect(try load("").logFormat == .text)
        #expect(try load("log_format: json").logFormat == .json)
        #expect(try load("log_format: JSON").logFormat == .json)
        let overridden = try load("log_format: json", environment: ["SALVO_LOG_FORMAT": "text"])
        #expect(overridden.logFormat == .text)
        #expect(overridden.environmentOverrides.contains("SALVO_LOG_FORMAT"))
        #expect(try load("", environment: ["SALVO_LOG_FORMAT": "json"]).logFormat == .json)
    }

    @Test("an unknown format names the key and the choices")
    func unknownFormat() throws {
        #expect {
            try load("log_format: yaml")
        } throws: { error in
            let message = (error as? SalvoWorkerError)?.message ?? ""
            return message.contains("log_format") && message.contains("\"yaml\"") && message.contains("text, json")
        }
        #expect(throws: SalvoWorkerError.self) { try load("", environment: ["SALVO_LOG_FORMAT": "xml"]) }
    }
}
