import NIOCore
import SalvoHTTP2
import Testing

@testable import SalvoAPNs

/// Answers and header values from outside are classified by what they can prove: the status
/// decides the class of an answer, a reason refines it only where Apple pairs them, unknown
/// reasons are bounded, and header values HTTP/2 forbids never leave.
@Suite struct HostileAnswerTests {
    @Test(arguments: [
        // The reason refines within its status class.
        (400, APNsReason.badDeviceToken, APNsRetryPolicy.never, true),
        (410, .unregistered, .never, true),
        (429, .tooManyRequests, .afterDelayPerToken, false),
        (429, .tooManyProviderTokenUpdates, .backoff, false),
        (403, .expiredProviderToken, .refreshTokenAndReplay, false),
        (503, .shutdown, .backoff, false),
        // A reason under another status does not outrank it.
        (500, .badDeviceToken, .backoff, false),
        (503, .unregistered, .backoff, false),
        (500, .tooManyRequests, .backoff, false),
        (400, .unregistered, .never, false),
        (400, .tooManyRequests, .never, false),
        (400, .shutdown, .never, false),
        (429, .badDeviceToken, .afterDelayPerToken, false),
        (200 + 210, .expiredProviderToken, .never, false),
    ])
    func statusDecidesTheClass(status: Int, reason: APNsReason, policy: APNsRetryPolicy, feedback: Bool) {
        let response = APNsResponse(status: status, reason: reason)
        #expect(response.retryPolicy == policy)
        #expect(response.producesFeedback == feedback)
        #expect((response.pairedReason != nil) == (reason.status == status))
    }

    @Test func unknownReasonsAreTruncatedAndLabelledOther() {
        let huge = String(repeating: "é", count: 100_000)
        let response = APNsResponse(status: 500, apnsID: nil, body: ByteBuffer(string: #"{"reason":"\#(huge)"}"#))
        guard case .other(let text) = response.reason else {
            Issue.record("expected an unknown reason, got \(String(describing: response.reason))")
            return
        }
        #expect(text.utf8.count == 64, "32 two-byte characters: cut at a character boundary")
        #expect(text == String(repeating: "é", count: 32))
        #expect(response.retryPolicy == .backoff)
        #expect(response.reason?.metricLabel == "other")
        #expect(APNsReason.unregistered.metricLabel == "Unregistered")
        #expect(APNsReason.metricLabel("Unregistered") == "Unregistered")
        #expect(APNsReason.metricLabel("Brand new") == "other")
        #expect(APNsReason("ShortNewReason") == .other("ShortNewReason"))
    }

    @Test(arguments: [
        "abc ", " abc", "\tabc", "a\u{0}b", "a\r\nb", "a\u{7F}", " ", String(repeating: "x", count: 65), "",
    ])
    func collapseIDsHTTP2WouldRefuseAreRejected(value: String) {
        #expect(APNsCollapseID(headerValue: value.utf8) == nil)
        #expect(throws: APNsError.self) { try APNsCollapseID(value) }
        let fields = [
            APNsHeaderField(name: "apns-topic", value: "com.example.app"),
            APNsHeaderField(name: "apns-collapse-id", value: value),
        ]
        let reason = APNsRequestValidator().validate(
            method: APNsRequest.method, path: Array("/3/device/\(String(repeating: "ab", count: 32))".utf8),
            headers: fields,
            bodySize: 2)
        #expect(reason == .badCollapseId)
    }

    @Test(arguments: ["a b", "ünïcode", "x", String(repeating: "x", count: 64), "tag:campaign/42"])
    func ordinaryCollapseIDsAreKept(value: String) throws {
        #expect(try APNsCollapseID(value).string == value)
    }

    @Test func collapseIDErrorNamesTheRule() {
        #expect {
            try APNsCollapseID("abc ")
        } throws: { error in
            let error = error as? APNsError
            return error?.code == .invalidCollapseID && error?.reason == .badCollapseId
                && error?.message.contains("surrounding spaces") == true
        }
    }

    @Test func aServersProtocolErrorResetIsItsOwnClass() {
        let reset = HTTP2Error(.streamReset, "stream 1 closed before a response", http2ErrorCode: .protocolError)
        let mapped = APNsConnectionHandler.apnsError(reset)
        #expect(mapped.code == .streamProtocolError)
        #expect(!mapped.isRetriable)
        #expect(mapped.underlying == reset.message)
        // Other resets, and resets our side sent because of the server's frames, stay transport failures.
        #expect(
            APNsConnectionHandler.apnsError(HTTP2Error(.streamReset, "r", http2ErrorCode: .internalError)).code
                == .connectionLost)
        #expect(
            APNsConnectionHandler.apnsError(HTTP2Error(.invalidResponse, "r", http2ErrorCode: .protocolError)).code
                == .connectionLost)
    }
}
