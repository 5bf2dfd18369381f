import Testing

@testable import SalvoMockAPNs

/// Token connections start at one stream until a request with a valid provider token was answered.
@Suite struct BroadcastStateMachineTests {
    @Test("a token connection opens up after the first answer to a valid token, not before")
    func tokenStart() {
        var machine = MockConnectionStateMachine(advertisedMaxConcurrentStreams: 500, startsWithOneStream: true)
        #expect(machine.answered(accepted: false, dropStreamsAfterRejection: false, tokenValidated: false) == .none)
        #expect(machine.awaitsValidToken)
        #expect(machine.answered(accepted: false, dropStreamsAfterRejection: false, tokenValidated: true) == .restoreMaxConcurrentStreams(500))
        #expect(!machine.awaitsValidToken)
        #expect(machine.answered(accepted: true, dropStreamsAfterRejection: false, tokenValidated: true) == .none)
    }

    @Test("a certificate connection opens at once; a rejection with the drop fault keeps one stream until a success")
    func otherStarts() {
        var certificate = MockConnectionStateMachine(advertisedMaxConcurrentStreams: 500, startsWithOneStream: true)
        #expect(certificate.needsNoToken() == .restoreMaxConcurrentStreams(500))
        #expect(certificate.needsNoToken() == .none)
        var dropping = MockConnectionStateMachine(advertisedMaxConcurrentStreams: 500, startsWithOneStream: true)
        #expect(dropping.answered(accepted: false, dropStreamsAfterRejection: true, tokenValidated: true) == .none)
        #expect(dropping.answered(accepted: true, dropStreamsAfterRejection: true, tokenValidated: true) == .restoreMaxConcurrentStreams(500))
        var plain = MockConnectionStateMachine(advertisedMaxConcurrentStreams: 500)
        #expect(plain.needsNoToken() == .none)
    }
}
