import Foundation
import SalvoLoadTest
import SalvoMockAPNs

/// Scenarios and files shared by the tests.
enum TestScenarios {
    /// The repository root, from this file's path.
    static let repositoryRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// A temporary directory removed by `cleanUp`.
    static func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "salvo-loadtest-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func remove(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// A small constant-rate per-user scenario with a campaign and every fault.
    static func small(rate: Double = 100, seconds: Double = 1) -> LoadTestScenario {
        var scenario = LoadTestScenario()
        scenario.name = "small"
        scenario.mockTokens = MockTokenFate(unregistered: 0.05, badDeviceToken: 0.05)
        scenario.phases = [
            .init(
                name: "steady", durationSeconds: seconds, rate: rate,
                campaign: .init(tokensPerJob: 50, everySeconds: 0.5))
        ]
        scenario.mix.unregistered = 0.1
        scenario.mix.badDeviceToken = 0.05
        scenario.mix.duplicateJobs = 0.1
        scenario.mix.badJobs = 0.1
        scenario.drainSeconds = 0
        return scenario
    }
}
