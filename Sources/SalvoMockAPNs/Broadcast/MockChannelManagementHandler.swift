import Logging
import NIOCore
import NIOSSL
import SalvoAPNs
import SalvoHTTP2

/// One connection of the channel-management listener (`--broadcast-listen`), after the
/// server-mode `HTTP2SessionHandler`: authenticates like the APNs listener (client certificate or
/// provider token, with `TopicMismatch` when a certificate names another bundle than the path),
/// applies ``MockBroadcastJudge``'s rules and answers at once (no scenario faults: they shape
/// the push path).
final class MockChannelManagementHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2ReceivedRequest

    private let runtime: MockAPNsRuntime
    private let session: HTTP2SessionHandler
    private var authentication: MockAuthentication?
    private var providerToken = MockProviderTokenStateMachine()

    init(runtime: MockAPNsRuntime, session: HTTP2SessionHandler) {
        self.runtime = runtime
        self.session = session
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let received = self.unwrapInboundIn(data)
        if self.authentication == nil { self.resolveAuthentication(context: context) }
        let request = MockBroadcastRequest(received.request)
        let now = WallClock.nowMilliseconds() / 1000
        let outcome = self.runtime.broadcastJudge.manage(request) { bundleID in
            self.authenticate(request, bundleID: bundleID, nowSeconds: now)
        }
        let response = MockBroadcastAnswer.response(outcome, request: request)
        do {
            try self.session.respond(streamID: received.streamID, response)
        } catch {
            self.runtime.logger.debug("channel answer not sent", metadata: ["error": "\(error)"])
            return
        }
        self.runtime.counters.channelRequest(
            rejected: { if case .rejected(let reason) = outcome { reason } else { nil } }())
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        self.runtime.logger.debug("channel-management connection error", metadata: ["error": "\(error)"])
        context.close(promise: nil)
    }

    private func resolveAuthentication(context: ChannelHandlerContext) {
        var certificateBundleID: String?? = nil
        if let tls = try? context.pipeline.syncOperations.handler(type: NIOSSLServerHandler.self),
            let certificate = tls.peerCertificate
        {
            certificateBundleID = .some((try? APNsCertificateCredential.subjectUserID(of: certificate)) ?? nil)
        }
        self.authentication = MockAuthentication.resolve(
            certificateBundleID: certificateBundleID,
            requiresAuthentication: self.runtime.configuration.requiresAuthentication)
    }

    private func authenticate(_ request: MockBroadcastRequest, bundleID: String, nowSeconds: Int64) -> APNsReason? {
        switch self.authentication ?? .open {
        case .open:
            return nil
        case .badCertificate:
            return .badCertificate
        case .certificate(let certificateBundleID):
            return certificateBundleID == bundleID ? nil : .topicMismatch
        case .token:
            let authorization = request.first("authorization").map { Array($0.utf8) }
            var check = self.providerToken.check(authorization: authorization, now: nowSeconds)
            if check == .verify, let authorization {
                check = self.providerToken.verified(
                    authorization, result: self.runtime.verifier.verify(authorization: authorization), now: nowSeconds)
            }
            switch check {
            case .accepted: return self.runtime.teamMismatch(teamID: self.providerToken.teamID, bundleID: bundleID)
            case .rejected(let reason): return reason
            case .verify: return .invalidProviderToken
            }
        }
    }
}
