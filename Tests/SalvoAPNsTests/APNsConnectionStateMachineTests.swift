import Testing

@testable import SalvoAPNs

@Suite("APNsConnection.StateMachine")
struct APNsConnectionStateMachineTests {
    typealias Machine = APNsConnection.StateMachine

    private func ready(maxConcurrentStreams: Int = 100) -> Machine {
        var machine = Machine()
        _ = machine.settingsReceived(maxConcurrentStreams: maxConcurrentStreams)
        return machine
    }

    @Test("ALPN other than h2 fails the setup; h2 passes")
    func alpn() {
        var machine = Machine()
        #expect(machine.tlsHandshakeCompleted(negotiatedProtocol: "h2") == .none)
        if case .fail(let reason) = machine.tlsHandshakeCompleted(negotiatedProtocol: "http/1.1") {
            #expect(reason.contains("http/1.1"))
        } else {
            Issue.record("http/1.1 must fail")
        }
        var other = Machine()
        #expect(other.tlsHandshakeCompleted(negotiatedProtocol: nil) != .none)
    }

    @Test("the first SETTINGS makes the connection ready; later ones report changes only")
    func settings() {
        var machine = Machine()
        #expect(!machine.acceptsRequests)
        #expect(machine.settingsReceived(maxConcurrentStreams: 1000) == .becameReady(maxConcurrentStreams: 1000))
        #expect(machine.acceptsRequests)
        #expect(machine.settingsReceived(maxConcurrentStreams: 1000) == .none)
        #expect(machine.settingsReceived(maxConcurrentStreams: 1) == .maxConcurrentStreamsChanged(1))
    }

    @Test("GOAWAY drains a ready connection once, and fails one still connecting")
    func goAway() {
        var machine = self.ready()
        #expect(machine.goAwayReceived() == .notifyDraining)
        #expect(!machine.acceptsRequests)
        #expect(machine.goAwayReceived() == .none)
        #expect(machine.channelInactive() == .notifyClosed)

        var connecting = Machine()
        guard case .fail = connecting.goAwayReceived() else {
            Issue.record("GOAWAY before SETTINGS must fail the setup")
            return
        }
        // A late SETTINGS after giving up does not revive the connection.
        #expect(connecting.settingsReceived(maxConcurrentStreams: 10) == .none)
        #expect(connecting.channelInactive() == .failConnect)
    }

    @Test("retiring sends our GOAWAY once")
    func retire() {
        var machine = self.ready()
        #expect(machine.retire() == .sendGoAwayAndNotify)
        #expect(machine.retire() == .none)
        var connecting = Machine()
        #expect(connecting.retire() != .none)
    }

    @Test("keepalive: traffic defers the PING, idleness sends one, no ACK closes")
    func keepaliveTimeout() {
        var machine = self.ready()
        // Ready counts as traffic, so the first check only re-arms.
        #expect(machine.keepaliveTimerFired() == .scheduleCheck)
        #expect(machine.keepaliveTimerFired() == .sendPing)
        guard case .close = machine.keepaliveTimerFired() else {
            Issue.record("an unanswered PING must close the connection")
            return
        }
        #expect(machine.channelInactive() == .notifyClosed)
    }

    @Test("keepalive: an ACK or a read burst keeps the connection")
    func keepaliveAck() {
        var machine = self.ready()
        #expect(machine.keepaliveTimerFired() == .scheduleCheck)
        #expect(machine.keepaliveTimerFired() == .sendPing)
        #expect(machine.pingAcknowledged() == .scheduleCheck)
        #expect(machine.pingAcknowledged() == .none)
        machine.trafficSeen()
        #expect(machine.keepaliveTimerFired() == .scheduleCheck)
        #expect(machine.acceptsRequests)
    }

    @Test("the setup deadline gives up only while connecting")
    func setupDeadline() {
        var connecting = Machine()
        let givesUp = connecting.connectTimeoutFired()
        #expect(givesUp)
        #expect(connecting.channelInactive() == .failConnect)
        #expect(connecting.channelInactive() == .none)
        var machine = self.ready()
        let readyGivesUp = machine.connectTimeoutFired()
        #expect(!readyGivesUp)
    }

    @Test("an error on a ready connection reports a close, before ready a failed setup")
    func errors() {
        var machine = self.ready()
        machine.errorCaught()
        #expect(!machine.acceptsRequests)
        #expect(machine.channelInactive() == .notifyClosed)
        var connecting = Machine()
        connecting.errorCaught()
        #expect(connecting.channelInactive() == .failConnect)
    }
}
