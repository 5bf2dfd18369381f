import SalvoAPNs
import Testing

@Suite struct APNsReasonTests {
    /// Apple's table: status → reasons.
    static let table: [Int: [String]] = [
        400: [
            "BadCollapseId", "BadDeviceToken", "BadExpirationDate", "BadMessageId", "BadPriority", "BadTopic",
            "DeviceTokenNotForTopic", "DuplicateHeaders", "IdleTimeout", "InvalidPushType", "MissingDeviceToken",
            "MissingTopic", "PayloadEmpty", "TopicDisallowed",
        ],
        403: [
            "BadCertificate", "BadCertificateEnvironment", "ExpiredProviderToken", "Forbidden",
            "InvalidProviderToken", "MissingProviderToken", "UnrelatedKeyIdInToken", "BadEnvironmentKeyInToken",
        ],
        404: ["BadPath"],
        405: ["MethodNotAllowed"],
        410: ["ExpiredToken", "Unregistered"],
        413: ["PayloadTooLarge"],
        429: ["TooManyProviderTokenUpdates", "TooManyRequests"],
        500: ["InternalServerError"],
        503: ["ServiceUnavailable", "Shutdown"],
    ]

    @Test func everyDocumentedReasonHasItsStatus() {
        var seen = 0
        for (status, reasons) in Self.table {
            for string in reasons {
                let reason = APNsReason(string)
                #expect(reason.string == string)
                #expect(reason.status == status, "\(string)")
                if case .other = reason { Issue.record("\(string) is not known") }
                seen += 1
            }
        }
        #expect(seen == APNsReason.documented.count)
    }

    @Test func unknownReasonsAreKeptAsText() {
        let reason = APNsReason("BrandNewReason")
        #expect(reason == .other("BrandNewReason"))
        #expect(reason.string == "BrandNewReason")
        #expect(reason.status == nil)
        #expect(reason.isPermanent)
    }

    @Test func retryMatrix() {
        for reason in [
            APNsReason.badDeviceToken, .deviceTokenNotForTopic, .unregistered, .expiredToken,
            .payloadTooLarge, .forbidden, .badTopic, .missingTopic, .invalidProviderToken, .badPath,
        ] {
            #expect(reason.retryPolicy == .never, "\(reason)")
            #expect(reason.isPermanent)
        }
        #expect(APNsReason.tooManyRequests.retryPolicy == .afterDelayPerToken)
        #expect(APNsReason.expiredProviderToken.retryPolicy == .refreshTokenAndReplay)
        for reason in [APNsReason.internalServerError, .serviceUnavailable, .shutdown, .tooManyProviderTokenUpdates] {
            #expect(reason.retryPolicy == .backoff, "\(reason)")
            #expect(!reason.isPermanent)
        }
        // Every 4xx except the two 429s and ExpiredProviderToken is permanent.
        for reason in APNsReason.documented where (400..<500).contains(reason.status!) {
            let retriable: Set<APNsReason> = [.tooManyRequests, .tooManyProviderTokenUpdates, .expiredProviderToken]
            #expect(reason.isPermanent == !retriable.contains(reason), "\(reason)")
        }
    }

    @Test func feedbackReasons() {
        let feedback = APNsReason.documented.filter(\.producesFeedback)
        #expect(Set(feedback) == [.unregistered, .expiredToken, .badDeviceToken, .deviceTokenNotForTopic])
    }

    @Test func unknownStatusesFallBackToTheStatusClass() {
        #expect(APNsRetryPolicy(status: 429) == .afterDelayPerToken)
        #expect(APNsRetryPolicy(status: 502) == .backoff)
        #expect(APNsRetryPolicy(status: 418) == .never)
    }
}
