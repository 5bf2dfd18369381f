/// The arrival times of every job, fixed in advance from the scenario's rates: the generator is
/// open-loop, so *when* a job is due never depends on how fast earlier jobs were produced.
///
/// Per-user arrivals are evenly spaced by the instantaneous rate. With a linear ramp from `r0` to
/// `r1` over `D` seconds, `n` jobs are due by time `t` when `r0·t + (r1−r0)·t²/(2D) = n`, so the
/// `n`-th arrival is the positive root of that quadratic. Campaign jobs arrive at the phase start
/// and every `every_seconds` after it (each of a phase's campaigns on its own). The streams are
/// merged in time order; at equal times campaigns come first, in the order given.
public struct LoadTestSchedule: Sequence, Sendable {
    public struct Arrival: Sendable, Hashable {
        /// Nanoseconds after the run's start.
        public var offsetNanoseconds: Int64
        public var lane: LoadTestLane
        /// Tokens the job carries.
        public var tokenCount: Int
        /// Index of the phase in the scenario.
        public var phase: Int
        /// The ``LoadTestScenario/Campaign/name`` of a campaign job; nil for a per-user job or an
        /// unnamed campaign.
        public var campaign: String? = nil
    }

    public let phases: [LoadTestScenario.Phase]

    public init(phases: [LoadTestScenario.Phase]) {
        self.phases = phases
    }

    public func makeIterator() -> Iterator {
        Iterator(phases: phases)
    }

    /// Arrival `n` (from 0) of a phase's per-user stream, in seconds after the phase start, or nil
    /// when it falls after the phase.
    static func perUserOffset(_ n: Int, phase: LoadTestScenario.Phase) -> Double? {
        let end = phase.rate
        let start = phase.rampFrom ?? end
        let duration = phase.durationSeconds
        let a = (end - start) / (2 * duration)
        let count = Double(n)
        let t: Double
        if abs(a) < 1e-12 {
            guard start > 0 else { return nil }
            t = count / start
        } else {
            let discriminant = start * start + 4 * a * count
            guard discriminant >= 0 else { return nil }
            t = (-start + discriminant.squareRoot()) / (2 * a)
        }
        return t >= 0 && t < duration ? t : nil
    }

    public struct Iterator: IteratorProtocol, Sendable {
        private let phases: [LoadTestScenario.Phase]
        private var phaseIndex = 0
        private var phaseStart: Double = 0
        private var perUserIndex = 0
        private var campaignIndices: [Int] = []

        init(phases: [LoadTestScenario.Phase]) {
            self.phases = phases
        }

        public mutating func next() -> Arrival? {
            while phaseIndex < phases.count {
                let phase = phases[phaseIndex]
                let perUser = LoadTestSchedule.perUserOffset(perUserIndex, phase: phase)
                if campaignIndices.count != phase.campaigns.count {
                    campaignIndices = Array(repeating: 0, count: phase.campaigns.count)
                }
                // The earliest next burst of the phase's campaigns (the first campaign on a tie).
                var next: (index: Int, offset: Double)?
                for (index, campaign) in phase.campaigns.enumerated() {
                    let t = Double(campaignIndices[index]) * campaign.everySeconds
                    if t < phase.durationSeconds && (next == nil || t < next!.offset) { next = (index, t) }
                }
                switch (perUser, next) {
                case (nil, nil):
                    phaseStart += phase.durationSeconds
                    phaseIndex += 1
                    perUserIndex = 0
                    campaignIndices = []
                case (let user?, let burst) where burst == nil || user < burst!.offset:
                    perUserIndex += 1
                    return arrival(at: user, lane: .priority, tokens: 1)
                case (_, let burst?):
                    campaignIndices[burst.index] += 1
                    let campaign = phase.campaigns[burst.index]
                    var arrival = arrival(at: burst.offset, lane: .campaign, tokens: campaign.tokensPerJob)
                    arrival.campaign = campaign.name
                    return arrival
                default:
                    return nil
                }
            }
            return nil
        }

        private func arrival(at offset: Double, lane: LoadTestLane, tokens: Int) -> Arrival {
            Arrival(
                offsetNanoseconds: Int64(((phaseStart + offset) * 1e9).rounded()), lane: lane, tokenCount: tokens,
                phase: phaseIndex)
        }
    }
}
