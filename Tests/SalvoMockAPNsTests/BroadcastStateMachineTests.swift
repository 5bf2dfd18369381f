import Foundation
import Testing

@testable import SalvoMockAPNs

/// Token connections start at one stream until a request with a valid provider token was answered.
@Suite struct BroadcastStateMachineTests {
    @Test("a token connection opens up after the first answer to a valid token, not before")
    func tokenStart() {
        var machine = MockConnectionStateMachine(advertisedMaxConcurrentStreams: 500, startsWithOneStream: true)
        #expect(machine.answered(accepted: false, dropStreamsAfterRejection: false, tokenValidated: false) == .none)
        #expect(machine.awaitsValidToken)
        #expect(
            machine.answered(accepted: false, dropStreamsAfterRejection: false, tokenValidated: true)
                == .restoreMaxConcurrentStreams(500))
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
        #expect(
            dropping.answered(accepted: true, dropStreamsAfterRejection: true, tokenValidated: true)
                == .restoreMaxConcurrentStreams(500))
        var plain = MockConnectionStateMachine(advertisedMaxConcurrentStreams: 500)
        #expect(plain.needsNoToken() == .none)
    }
}

/// `/stats` of a mock from before the broadcast members still decodes.
@Suite struct BroadcastStatsTests {
    @Test("older /stats JSON decodes with zero channels; the current one round-trips")
    func olderStats() throws {
        let old =
            #"{"scenario":"s","accepted":3,"rejected":{"Unregistered":1},"rejected_total":1,"connections_open":1,"connections_total":2,"streams_total":4,"streams_open":0,"stream_resets":0,"unanswered":0,"connection_resets":0,"goaways_sent":0,"stream_limit_drops":0}"#
        let stats = try JSONDecoder().decode(MockAPNsStats.self, from: Data(old.utf8))
        #expect(
            stats.accepted == 3 && stats.channels == 0 && stats.channelsByApp.isEmpty && stats.broadcastsAccepted == 0)
        var current = stats
        current.channels = 2
        current.channelsByApp = ["production/com.example.app": 2]
        current.channelRequestsRejected = ["CannotCreateChannelConfig": 1]
        #expect(try JSONDecoder().decode(MockAPNsStats.self, from: JSONEncoder().encode(current)) == current)
    }
}
