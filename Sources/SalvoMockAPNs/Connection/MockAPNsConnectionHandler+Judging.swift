import NIOCore
import NIOSSL
import SalvoAPNs
import SalvoHTTP2
import Synchronization

extension MockAPNsConnectionHandler {
    /// Decides the connection's authentication once, from the TLS handshake's client certificate.
    func resolveAuthentication(context: ChannelHandlerContext) {
        var certificateBundleID: String?? = nil
        if let tls = try? context.pipeline.syncOperations.handler(type: NIOSSLServerHandler.self),
            let certificate = tls.peerCertificate
        {
            certificateBundleID = .some((try? APNsCertificateCredential.subjectUserID(of: certificate)) ?? nil)
        }
        let authentication = MockAuthentication.resolve(
            certificateBundleID: certificateBundleID,
            requiresAuthentication: self.runtime.configuration.requiresAuthentication)
        self.authentication = authentication
        self.validation.validator = authentication.makeValidator()
        if authentication != .token { self.apply(self.connection.needsNoToken()) }
    }

    /// Apple's rules, authentication, the additional rule, then the scenario, first failure wins.
    func judge(_ request: HTTP2Request, receivedAt: Int64) -> MockAnswer {
        let push: APNsReceivedRequest
        let (verdict, apnsIDBytes) = self.validation.inspect(request.headers, bodySize: request.body.readableBytes)
        switch verdict {
        case .rejected(let reason):
            // A broadcast path fails the device-token path rules: only then is it looked at, so
            // device pushes pay nothing for the broadcast endpoint.
            if reason == .badPath || reason == .methodNotAllowed || reason == .missingDeviceToken,
                let answer = self.judgeBroadcast(request, receivedAt: receivedAt)
            {
                return answer
            }
            let echoed = apnsIDBytes.flatMap { APNsID(headerValue: $0) }
            return .rejected(
                reason, apnsID: echoed ?? APNsID.random(using: &self.random), request: nil, timestampMilliseconds: nil)
        case .accepted(let accepted):
            push = accepted
        }
        let apnsID = push.apnsID ?? APNsID.random(using: &self.random)
        func reject(_ reason: APNsReason, timestamp: Int64? = nil) -> MockAnswer {
            .rejected(reason, apnsID: apnsID, request: push, timestampMilliseconds: timestamp)
        }
        if let reason = self.authenticate(authorization: push.authorization, nowSeconds: receivedAt / 1000) {
            return reject(reason)
        }
        if let rule = self.runtime.configuration.additionalRule, let reason = rule(push) { return reject(reason) }

        let scenario = self.scenario
        if !scenario.tokens.isTrivial {
            switch scenario.tokens.outcome(for: push.token) {
            case .unregistered:
                return reject(
                    .unregistered, timestamp: MockTokenFate.unregisteredTimestamp(receivedAtMilliseconds: receivedAt))
            case .badDeviceToken:
                return reject(.badDeviceToken)
            case .valid:
                break
            }
        }
        if let limit = scenario.rateLimit, !self.runtime.admit(push.token, limit: limit) {
            return reject(.tooManyRequests)
        }
        if self.runtime.isShutdownStormActive(scenario.shutdownStorm) { return reject(.shutdown) }
        if !scenario.errors.isEmpty, let reason = scenario.errors.reason(forDraw: self.random.nextUnit()) {
            return reject(reason)
        }
        if scenario.streamResetRate > 0, self.random.nextUnit() < scenario.streamResetRate { return .resetStream }
        return .accepted(push, payload: request.body, apnsID: apnsID)
    }

    /// The connection's authentication rules; nil when the request may proceed.
    func authenticate(authorization: [UInt8]?, nowSeconds: Int64) -> APNsReason? {
        switch self.authentication ?? .open {
        case .open, .certificate:
            // A certificate's topics were checked by this connection's validator.
            return nil
        case .badCertificate:
            return .badCertificate
        case .token:
            var check = self.providerToken.check(authorization: authorization, now: nowSeconds)
            if check == .verify, let authorization {
                check = self.providerToken.verified(
                    authorization, result: self.runtime.verifier.verify(authorization: authorization), now: nowSeconds)
            }
            switch check {
            case .accepted:
                self.tokenValidated = true
                return nil
            case .rejected(let reason): return reason
            case .verify: return .invalidProviderToken
            }
        }
    }

    // MARK: Answering

    func send(_ answer: MockAnswer, streamID: Int32, receivedAt: Int64) {
        // A closed connection counted its waiting requests as unanswered already.
        guard self.isOpen else { return }
        self.waitingStreams -= 1
        let counters = self.runtime.counters
        switch answer {
        case .accepted(let push, let payload, let apnsID):
            guard
                self.respond(streamID: streamID, self.runtime.responses.accepted(apnsID: apnsID, random: &self.random))
            else {
                return
            }
            counters.accepted.wrappingAdd(1, ordering: .relaxed)
            if !self.runtime.listeners.isEmpty {
                let accepted = MockAcceptedPush(
                    apnsID: apnsID, request: push, payload: payload, receivedAtMilliseconds: receivedAt,
                    connectionID: self.connectionID)
                for listener in self.runtime.listeners { listener.pushAccepted(accepted) }
            }
            self.apply(
                self.connection.answered(
                    accepted: true, dropStreamsAfterRejection: self.scenario.dropStreamsAfterRejection,
                    tokenValidated: self.tokenValidated))

        case .rejected(let reason, let apnsID, let push, let timestamp):
            let response = self.runtime.responses.rejected(reason, apnsID: apnsID, timestampMilliseconds: timestamp)
            guard self.respond(streamID: streamID, response) else { return }
            counters.rejected(reason)
            if !self.runtime.listeners.isEmpty {
                let rejected = MockRejectedPush(
                    reason: reason, status: response.status, apnsID: apnsID, request: push,
                    timestampMilliseconds: timestamp,
                    receivedAtMilliseconds: receivedAt, connectionID: self.connectionID)
                for listener in self.runtime.listeners { listener.pushRejected(rejected) }
            }
            self.apply(
                self.connection.answered(
                    accepted: false, dropStreamsAfterRejection: self.scenario.dropStreamsAfterRejection,
                    tokenValidated: self.tokenValidated))
            if reason == .shutdown { self.goAwayNow(debugData: Self.shutdownDebugData) }

        case .broadcast(let response, let accepted, let reason):
            self.sendBroadcast(response, accepted: accepted, reason: reason, streamID: streamID)

        case .resetStream:
            do {
                try self.session.resetStream(streamID: streamID, errorCode: .internalError)
                counters.streamResets.wrappingAdd(1, ordering: .relaxed)
            } catch {
                counters.unanswered.wrappingAdd(1, ordering: .relaxed)
            }
        }
    }

    /// Hands a response to HTTP/2; false when the stream is gone (the client reset it).
    func respond(streamID: Int32, _ response: HTTP2Response) -> Bool {
        do {
            try self.session.respond(streamID: streamID, response)
            return true
        } catch {
            self.runtime.counters.unanswered.wrappingAdd(1, ordering: .relaxed)
            return false
        }
    }

    func apply(_ action: MockConnectionStateMachine.AnswerAction) {
        switch action {
        case .none:
            return
        case .lowerMaxConcurrentStreams:
            guard (try? self.session.setMaxConcurrentStreams(1)) != nil else { return }
            self.runtime.counters.streamLimitDrops.wrappingAdd(1, ordering: .relaxed)
        case .restoreMaxConcurrentStreams(let value):
            try? self.session.setMaxConcurrentStreams(value)
        }
    }
}
