import Synchronization

/// The scenario in force, replaceable at run time. Connections keep their own copy and look at
/// the generation (one relaxed atomic load per request) to learn that it changed, so the hot path
/// never takes the lock.
final class MockScenarioBox: Sendable {
    private let generationCounter = Atomic<Int>(0)
    private let current: Mutex<MockScenario>

    init(_ scenario: MockScenario) {
        self.current = Mutex(scenario)
    }

    var generation: Int { self.generationCounter.load(ordering: .acquiring) }

    /// The scenario and the generation it belongs to.
    func load() -> (generation: Int, scenario: MockScenario) {
        self.current.withLock { scenario in (self.generationCounter.load(ordering: .relaxed), scenario) }
    }

    func replace(with scenario: MockScenario) {
        self.current.withLock { current in
            current = scenario
            self.generationCounter.wrappingAdd(1, ordering: .releasing)
        }
    }
}
