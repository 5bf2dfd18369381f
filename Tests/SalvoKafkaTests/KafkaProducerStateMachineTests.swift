import SalvoTestSupport
import Testing

@testable import SalvoKafka

@Suite struct KafkaProducerStateMachineTests {
    typealias Machine = KafkaProducer.StateMachine<String, Int, ManualClock>

    let clock = ManualClock()

    @Test func idsAreUniqueAndNeverZero() throws {
        var machine = Machine()
        let first = try machine.beginSend().get()
        let second = try machine.beginSend().get()
        #expect(first != 0)
        #expect(first != second)
    }

    @Test func deliveryFindsItsCompletionOnce() throws {
        var machine = Machine()
        let id = try machine.beginSend().get()
        machine.enqueued(id: id, completion: "a")
        #expect(machine.outstandingCount == 1)
        #expect(machine.delivered(id: id) == "a")
        #expect(machine.delivered(id: id) == nil)
        #expect(machine.outstandingCount == 0)
    }

    @Test func capacityWaitersRetryOnTheNextTick() {
        var machine = Machine()
        #expect(machine.waitForCapacity(1) == true)
        #expect(machine.waitForCapacity(2) == true)
        #expect(machine.tick(now: clock.now).retry == [1, 2])
        #expect(machine.tick(now: clock.now).retry.isEmpty)
    }

    @Test func flushCompletesWhenNothingIsOutstandingOrTimesOut() throws {
        var clock = clock
        var machine = Machine()
        #expect(machine.flush(9, deadline: clock.now) == true, "nothing outstanding")
        let id = try machine.beginSend().get()
        machine.enqueued(id: id, completion: "a")
        #expect(machine.flush(1, deadline: clock.now.advanced(by: .seconds(1))) == false)
        #expect(machine.flush(2, deadline: clock.now.advanced(by: .seconds(5))) == false)
        clock.advance(by: .seconds(1))
        let action = machine.tick(now: clock.now)
        #expect(action.flushTimedOut == [1])
        #expect(action.flushed.isEmpty)
        _ = machine.delivered(id: id)
        #expect(machine.tick(now: clock.now).flushed == [2])
    }

    @Test func shutdownDrainsThenStops() throws {
        var machine = Machine()
        let id = try machine.beginSend().get()
        machine.enqueued(id: id, completion: "a")
        machine.shutdown(now: clock.now, timeout: .seconds(3))
        #expect(throws: KafkaError.self) { try machine.beginSend().get() }
        #expect(machine.waitForCapacity(1) == false)
        #expect(machine.tick(now: clock.now) == .init())
        _ = machine.delivered(id: id)
        #expect(machine.tick(now: clock.now) == .init(stop: true))
    }

    @Test func shutdownTimeoutPurgesThenFailsTheRest() throws {
        var clock = clock
        var machine = Machine()
        for name in ["a", "b"] {
            machine.enqueued(id: try machine.beginSend().get(), completion: name)
        }
        machine.shutdown(now: clock.now, timeout: .seconds(3))
        clock.advance(by: .seconds(3))
        #expect(machine.tick(now: clock.now) == .init(purge: true))
        #expect(machine.tick(now: clock.now) == .init())
        clock.advance(by: Machine.purgeGrace)
        #expect(machine.tick(now: clock.now) == .init(stop: true))
        let remaining = machine.stopped()
        #expect(remaining.completions == ["a", "b"])
    }

    @Test func fatalErrorRefusesNewMessages() {
        var machine = Machine()
        let error = KafkaError(code: .fatal, message: "producer fenced", isFatal: true)
        machine.fail(error)
        #expect(throws: error) { try machine.beginSend().get() }
    }
}
