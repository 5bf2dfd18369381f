import Testing

@testable import SalvoHTTP2

@Suite struct StateMachineTests {
    typealias Machine = HTTP2SessionHandler.StateMachine

    @Test func creditIsReportedWhenItReturnsFromZero() {
        var machine = Machine(assumedPeerMaxConcurrentStreams: 2)
        machine.channelActive()
        #expect(machine.submitRequest() == .submit)
        #expect(machine.submitRequest() == .submit)
        #expect(machine.credit.available == 0)
        #expect(
            machine.streamFinished() == .creditAvailable(HTTP2StreamCredit(maxConcurrentStreams: 2, openStreams: 1)))
        // Not exhausted any more: the next release is not news.
        #expect(machine.streamFinished() == .none)
    }

    @Test func settingsChangesMoveCredit() {
        var machine = Machine(assumedPeerMaxConcurrentStreams: 100)
        machine.channelActive()
        for _ in 0..<3 { _ = machine.submitRequest() }
        #expect(machine.remoteSettingsChanged(maxConcurrentStreams: 1) == .none)
        #expect(machine.credit.available == 0)
        #expect(
            machine.remoteSettingsChanged(maxConcurrentStreams: 10)
                == .creditAvailable(HTTP2StreamCredit(maxConcurrentStreams: 10, openStreams: 3)))
    }

    @Test func goAwayRefusesNewRequestsAndOnlyLowersTheLastStream() {
        var machine = Machine(assumedPeerMaxConcurrentStreams: 100)
        machine.channelActive()
        machine.goAwayReceived(lastStreamID: 7)
        machine.goAwayReceived(lastStreamID: 9)
        #expect(machine.state == .goingAway(lastStreamID: 7))
        #expect(machine.isAboveGoAway(streamID: 9))
        #expect(!machine.isAboveGoAway(streamID: 7))
        guard case .refuse = machine.submitRequest() else {
            Issue.record("a request after GOAWAY must be refused")
            return
        }
        #expect(machine.streamFinished() == .none)
    }

    @Test func closedRefusesEverything() {
        var machine = Machine(assumedPeerMaxConcurrentStreams: 1)
        #expect(machine.submitRequest() == .submit)  // idle: queued until active
        machine.channelInactive()
        #expect(machine.submitRequest() == .refuse("connection closed"))
        #expect(machine.streamFinished() == .none)
        #expect(machine.credit.openStreams == 0)
    }

    @Test func configurationValidationNamesTheBadField() {
        var configuration = HTTP2SessionHandler.Configuration()
        #expect(throws: Never.self) { try configuration.validate() }
        configuration.connectionWindowSize = 1
        #expect { try configuration.validate() } throws: {
            ($0 as? HTTP2Error)?.message.contains("connectionWindowSize") == true
        }
    }
}
