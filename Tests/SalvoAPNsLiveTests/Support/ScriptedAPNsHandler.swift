import Foundation
import NIOCore
import SalvoHTTP2

/// One connection of `ScriptedAPNsServer`: answers requests, plays the fault.
final class ScriptedAPNsHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2ReceivedRequest

    private let server: ScriptedAPNsServer
    private let session: HTTP2SessionHandler
    private let connection: Int
    private var goAwayLastStreamID: Int32?
    /// The lowered SETTINGS went out; the next SETTINGS ACK puts them in force.
    private var loweredSettingsSent = false
    private var loweredSettingsAcknowledged = false
    /// After the acknowledgement, the streams opened before it drained (a request arrived with no
    /// other stream open): from here on the client must keep to the lowered limit.
    private var drainedAfterLowering = false
    private var context: ChannelHandlerContext?

    init(server: ScriptedAPNsServer, session: HTTP2SessionHandler, connection: Int) {
        self.server = server
        self.session = session
        self.connection = connection
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .localSettingsAcknowledged = event as? HTTP2Event, self.loweredSettingsSent {
            self.loweredSettingsAcknowledged = true
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let received = self.unwrapInboundIn(data)
        if let last = self.goAwayLastStreamID, received.streamID > last {
            self.server.record { $0.ignoredAboveGoAway += 1 }
            return
        }
        let (_, triggersFault) = self.server.received()
        if self.loweredSettingsAcknowledged {
            // Requests delivered in the same read burst as the ACK were sent before it, so only
            // count once the old streams drained.
            let open = self.session.openStreamCount
            if open <= 1 { self.drainedAfterLowering = true }
            if self.drainedAfterLowering {
                self.server.record {
                    $0.maxOpenStreamsAfterLowering = max($0.maxOpenStreamsAfterLowering, open)
                    $0.requestsAfterLowering += 1
                }
            }
        }
        if triggersFault, self.server.script.fault == .closeConnection {
            context.close(promise: nil)
            return
        }
        let token = received.request.path.map { String($0.split(separator: "/").last ?? "") } ?? ""
        if !self.server.script.silentTokens.contains(token) {
            self.answer(received)
        }
        if triggersFault, let fault = self.server.script.fault {
            switch fault {
            case .goAway:
                self.goAwayLastStreamID = received.streamID
                try? self.session.goAway(errorCode: .noError, lastStreamID: received.streamID)
            case .lowerMaxConcurrentStreams(let value):
                try? self.session.setMaxConcurrentStreams(value)
                self.loweredSettingsSent = true
            case .closeConnection:
                break
            }
        }
    }

    private func answer(_ received: HTTP2ReceivedRequest) {
        var headers = HTTP2Headers()
        headers.add(
            name: "apns-id", value: received.request.headers.first(name: "apns-id") ?? UUID().uuidString.lowercased())
        let response: HTTP2Response
        if let reason = self.server.rejectionReason(
            authorization: received.request.headers.first(name: "authorization"))
        {
            response = HTTP2Response(
                status: 403, headers: headers, body: ByteBuffer(string: #"{"reason":"\#(reason)"}"#))
        } else {
            response = HTTP2Response(status: 200, headers: headers)
        }
        do {
            try self.session.respond(streamID: received.streamID, response)
            let connection = self.connection
            self.server.record {
                $0.answered += 1
                $0.answeredPerConnection[connection] += 1
            }
        } catch {
            // The client reset the stream meanwhile (its deadline passed): nothing to answer.
        }
    }
}
