import SalvoHTTP2
import Testing

@testable import SalvoAPNs

@Suite("APNsOutcome and transport errors")
struct APNsOutcomeTests {
    @Test("accessors tell accepted, rejected and failed apart")
    func accessors() {
        let accepted = APNsOutcome.accepted(apnsID: nil, uniqueID: nil)
        let rejected = APNsOutcome.rejected(APNsResponse(status: 410, reason: .unregistered))
        let failed = APNsOutcome.failed(.notSent("refused"))
        #expect(accepted.isAccepted && accepted.rejection == nil && accepted.error == nil)
        #expect(!rejected.isAccepted && rejected.rejection?.reason == .unregistered && rejected.error == nil)
        #expect(!failed.isAccepted && failed.rejection == nil && failed.error?.code == .notSent)
    }

    @Test("transport failures are retriable; the transport's text is kept")
    func transportErrors() {
        #expect(APNsError.connectionFailed("handshake").isRetriable)
        #expect(APNsError.connectionLost("reset").isRetriable)
        #expect(APNsError(code: .timedOut, message: "late").isRetriable)
        #expect(APNsError.connectionFailed("certificate verify failed").underlying == "certificate verify failed")
    }

    @Test("HTTP/2 failures map to APNs codes by whether APNs may have seen the request")
    func http2Mapping() {
        #expect(APNsConnectionHandler.apnsError(HTTP2Error(.notSent, "refused")).code == .notSent)
        #expect(APNsConnectionHandler.apnsError(HTTP2Error(.timeout, "late")).code == .timedOut)
        #expect(APNsConnectionHandler.apnsError(HTTP2Error(.connectionLost, "gone")).code == .connectionLost)
        #expect(
            APNsConnectionHandler.apnsError(HTTP2Error(.streamReset, "reset", http2ErrorCode: .internalError)).code
                == .connectionLost)
    }
}
