import NIOCore
import SalvoAPNs
import Testing

@Suite struct APNsResponseTests {
    static let id = APNsID("eabeae54-14a8-11e5-b60b-1697f925ec7b")!

    @Test func successIgnoresTheBody() {
        let response = APNsResponse(
            status: 200, apnsID: Self.id, body: ByteBuffer(string: #"{"reason":"Unregistered"}"#))
        #expect(response.isAccepted)
        #expect(response.reason == nil)
        #expect(response.retryPolicy == nil)
        #expect(!response.producesFeedback)
    }

    @Test func unregisteredCarriesItsTimestamp() {
        let body = ByteBuffer(string: #"{"reason":"Unregistered","timestamp":1700000000123}"#)
        let response = APNsResponse(status: 410, apnsID: Self.id, body: body)
        #expect(response.reason == .unregistered)
        #expect(response.timestampMilliseconds == 1_700_000_000_123)
        #expect(response.retryPolicy == .never)
        #expect(response.producesFeedback)
    }

    @Test func readsHeadersFromTheWire() {
        let unique = APNsID.random()
        let headers = [
            APNsHeaderField(name: "apns-id", value: Self.id.description.uppercased()),
            APNsHeaderField(name: "apns-unique-id", value: unique.description),
            APNsHeaderField(name: "content-type", value: "application/json"),
        ]
        let response = APNsResponse(status: 400, headers: headers, body: ByteBuffer(string: #"{"reason":"BadTopic"}"#))
        #expect(response.apnsID == Self.id)
        #expect(response.apnsUniqueID == unique)
        #expect(response.reason == .badTopic)
        #expect(response.timestampMilliseconds == nil)
    }

    @Test func unknownReasonsUseTheStatusForRetries() {
        let response = APNsResponse(status: 503, apnsID: nil, body: ByteBuffer(string: #"{"reason":"Overheated"}"#))
        #expect(response.reason == .other("Overheated"))
        #expect(response.retryPolicy == .backoff)
        let missing = APNsResponse(status: 500, apnsID: nil, body: nil)
        #expect(missing.reason == nil)
        #expect(missing.retryPolicy == .backoff)
    }

    @Test(arguments: [
        (#"  { "timestamp" : 12 , "reason" : "ExpiredToken", "extra": null }  "#, APNsReason.expiredToken, Int64?(12)),
        (#"{"reason":"Bad\"Thing"}"#, APNsReason.other(#"Bad"Thing"#), nil),
        (#"{"reason":"Unregistered","timestamp":1.7e3}"#, APNsReason.unregistered, 1700),
        (#"{"reason":"Unregistered","nested":{"a":[1]}}"#, APNsReason.unregistered, nil),
        (#"{"reason":"Unregistered","timestamp":-5}"#, APNsReason.unregistered, -5),
    ])
    func parsesBodyVariants(body: String, reason: APNsReason, timestamp: Int64?) {
        let parsed = APNsErrorBody(parsing: Array(body.utf8))
        #expect(parsed == APNsErrorBody(reason: reason, timestampMilliseconds: timestamp))
    }

    @Test(arguments: ["", "{}", "[]", #"{"reason":5}"#, #"{"reason":"A""#, "not json", #"{"reason":"A"} x"#])
    func refusesBodiesWithoutAReason(body: String) {
        #expect(APNsErrorBody(parsing: Array(body.utf8)) == nil)
    }

    @Test func encodesWhatItParses() {
        let bodies = [
            APNsErrorBody(reason: .unregistered, timestampMilliseconds: 1_700_000_000_000),
            APNsErrorBody(reason: .badDeviceToken),
            APNsErrorBody(reason: .other("Odd \"quoted\" \\ reason\n\u{1}")),
        ]
        for body in bodies {
            #expect(APNsErrorBody(parsing: body.encoded()) == body)
        }
        #expect(
            String(decoding: bodies[0].encoded(), as: UTF8.self)
                == #"{"reason":"Unregistered","timestamp":1700000000000}"#)
    }

    @Test func rejectedAndNotSentErrors() {
        let rejected = APNsError.rejected(APNsResponse(status: 429, reason: .tooManyRequests))
        #expect(rejected.code == .rejected)
        #expect(rejected.reason == .tooManyRequests)
        #expect(rejected.isRetriable)
        #expect(!APNsError.rejected(APNsResponse(status: 410, reason: .unregistered)).isRetriable)
        let notSent = APNsError.notSent("GOAWAY above last stream id")
        #expect(notSent.code == .notSent)
        #expect(notSent.isRetriable)
        #expect(notSent.description.contains("GOAWAY"))
        #expect(!APNsError(code: .payloadTooLarge, message: "x").isRetriable)
    }
}
