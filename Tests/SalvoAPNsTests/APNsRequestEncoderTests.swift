import NIOCore
import SalvoHTTP2
import Testing

@testable import SalvoAPNs

@Suite("APNsRequestEncoder")
struct APNsRequestEncoderTests {
    private let token = try! DeviceToken(hex: String(repeating: "AB", count: 32))

    @Test("pseudo-header fields first, then the job's fields, apns-id and the bearer token")
    func headerBlock() throws {
        let encoder = APNsRequestEncoder(authority: "api.push.apple.com", scheme: "https")
        let apnsID = try #require(APNsID("123e4567-e89b-42d3-a456-426614174000"))
        let request = try APNsRequest(
            token: self.token, topic: "com.example.salvo", pushType: .alert, collapseID: APNsCollapseID("news"),
            apnsID: apnsID, payload: ByteBuffer(string: #"{"aps":{}}"#))
        let authorization = APNsAuthorization(jwt: "header.claims.signature", issuedAt: 1_700_000_000)
        let encoded = encoder.encode(request, authorization: authorization)
        let names = encoded.headers.map(\.name)
        #expect(
            names == [
                ":method", ":scheme", ":authority", ":path", "apns-topic", "apns-push-type", "apns-priority",
                "apns-collapse-id", "apns-id", "authorization",
            ])
        #expect(encoded.method == "POST")
        #expect(encoded.scheme == "https")
        #expect(encoded.authority == "api.push.apple.com")
        #expect(encoded.path == "/3/device/" + String(repeating: "ab", count: 32))
        #expect(encoded.headers.first(name: "apns-priority") == "10")
        #expect(encoded.headers.first(name: "apns-id") == "123e4567-e89b-42d3-a456-426614174000")
        #expect(encoded.headers.first(name: "authorization") == "bearer header.claims.signature")
        #expect(encoded.body == ByteBuffer(string: #"{"aps":{}}"#))
    }

    @Test("certificate connections send no authorization; without apns-id APNs assigns one")
    func minimal() throws {
        let encoder = APNsRequestEncoder(authority: "127.0.0.1:2197", scheme: "http")
        let request = try APNsRequest(
            token: self.token, topic: "com.example.salvo", pushType: .background, payload: ByteBuffer(string: "{}"))
        let encoded = encoder.encode(request, authorization: nil)
        #expect(!encoded.headers.contains(name: "authorization"))
        #expect(!encoded.headers.contains(name: "apns-id"))
        #expect(encoded.headers.first(name: "apns-priority") == "5")
        #expect(encoded.authority == "127.0.0.1:2197")
        #expect(encoded.scheme == "http")
    }

    @Test("the response's apns-id is parsed only when none was sent; apns-unique-id always")
    func responseIDs() throws {
        let sent = try #require(APNsID("00000000-0000-4000-8000-000000000001"))
        let assigned = "00000000-0000-4000-8000-000000000002"
        let unique = "00000000-0000-4000-8000-000000000003"
        let http2 = HTTP2Response(status: 200, headers: ["apns-id": assigned, "apns-unique-id": unique])
        #expect(APNsResponse(http2, sentAPNsID: sent).apnsID == sent)
        #expect(APNsResponse(http2, sentAPNsID: nil).apnsID == APNsID(assigned))
        #expect(APNsResponse(http2, sentAPNsID: nil).apnsUniqueID == APNsID(unique))
        let rejected = APNsResponse(
            HTTP2Response(status: 410, body: ByteBuffer(string: #"{"reason":"Unregistered","timestamp":1700000000000}"#)),
            sentAPNsID: sent)
        #expect(rejected.reason == .unregistered)
        #expect(rejected.timestampMilliseconds == 1_700_000_000_000)
    }
}
