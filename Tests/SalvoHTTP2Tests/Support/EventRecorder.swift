import NIOCore
import SalvoHTTP2

/// Records the `HTTP2Event`s that reach the end of a pipeline.
final class EventRecorder: ChannelInboundHandler {
    typealias InboundIn = HTTP2ReceivedRequest

    private(set) var events: [HTTP2Event] = []

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? HTTP2Event { self.events.append(event) }
        context.fireUserInboundEventTriggered(event)
    }

    var goAways: [HTTP2GoAway] {
        self.events.compactMap { if case .goAwayReceived(let goAway) = $0 { return goAway } else { return nil } }
    }

    var remoteSettings: [HTTP2RemoteSettings] {
        self.events.compactMap {
            if case .remoteSettingsChanged(let settings) = $0 { return settings } else { return nil }
        }
    }

    var creditAvailable: [HTTP2StreamCredit] {
        self.events.compactMap { if case .streamCreditAvailable(let credit) = $0 { return credit } else { return nil } }
    }

    var pingAcks: [HTTP2PingAck] {
        self.events.compactMap { if case .pingAcknowledged(let ack) = $0 { return ack } else { return nil } }
    }
}
