import SalvoMockAPNs
import Yams

/// Scenario files as `salvo mock-apns --scenario` reads them. A scenario that parses (and so
/// passed its validation) is encoded again, and must parse back to the same scenario: what the
/// admin listener echoes is what the mock runs.
enum MockScenarioFuzzing {
    static func run(_ bytes: [UInt8]) throws(FuzzFinding) {
        guard let text = String(validating: bytes, as: UTF8.self),
            let scenario = try? MockScenario.parse(text)
        else { return }
        let encoded: String
        do {
            encoded = try YAMLEncoder().encode(scenario)
        } catch {
            throw FuzzFinding("a valid scenario cannot be encoded: \(error)")
        }
        let again: MockScenario
        do throws(MockAPNsError) {
            again = try MockScenario.parse(encoded)
        } catch {
            throw FuzzFinding("a valid scenario's encoding is refused (\(error)):\n\(encoded)")
        }
        guard again == scenario else { throw FuzzFinding("scenario changes through its own encoding:\n\(encoded)") }
    }
}
