import NIOCore
import SalvoHTTP2
import Testing

@testable import SalvoAPNs

@Suite("APNsRequestEncoder")
struct APNsRequestEncoderTests {
    private let token = try! DeviceToken(hex: String(repeating: "AB", count: 32))

    @Test("pseudo-header fields first, then the job's fields, apns-id and the bearer token")
    func headerBlock() throws {
        var encoder = APNsRequestEncoder(authority: "api.push.apple.com", scheme: "https")
        let apnsID = try #require(APNsID("123e4567-e89b-42d3-a456-426614174000"))
        let request = try APNsRequest(
            token: self.token, topic: "com.example.salvo", pushType: .alert, collapseID: APNsCollapseID("news"),
            apnsID: apnsID, payload: ByteBuffer(string: #"{"aps":{}}"#))
        let authorization = APNsAuthorization(jwt: "header.claims.signature", issuedAt: 1_700_000_000)
        let encoded = encoder.encode(request, token: authorization.headerValue)
        let names = encoded.headerBlock.map(\.name)
        #expect(
            names == [
                ":path", ":method", ":scheme", ":authority", "apns-topic", "apns-push-type", "apns-priority",
                "apns-collapse-id", "authorization", "apns-id",
            ])
        #expect(encoded.method == "POST")
        #expect(encoded.scheme == "https")
        #expect(encoded.authority == "api.push.apple.com")
        #expect(encoded.path == "/3/device/" + String(repeating: "ab", count: 32))
        #expect(encoded.headerBlock.first(name: "apns-priority") == "10")
        #expect(encoded.headerBlock.first(name: "apns-id") == "123e4567-e89b-42d3-a456-426614174000")
        #expect(encoded.headerBlock.first(name: "authorization") == "bearer header.claims.signature")
        #expect(encoded.body == ByteBuffer(string: #"{"aps":{}}"#))
    }

    @Test("the shared block follows changes of the job's headers and of the token")
    func cacheFollowsChanges() throws {
        var encoder = APNsRequestEncoder(authority: "api.push.apple.com", scheme: "https")
        let payload = ByteBuffer(string: "{}")
        let first = try APNsRequest(token: self.token, topic: "com.example.a", pushType: .alert, payload: payload)
        let second = try APNsRequest(token: self.token, topic: "com.example.b", pushType: .alert, payload: payload)
        let old = APNsAuthorization(jwt: "old.token.value", issuedAt: 1)
        let new = APNsAuthorization(jwt: "new.token.value", issuedAt: 2)
        #expect(encoder.encode(first, token: old.headerValue).headerBlock.first(name: "apns-topic") == "com.example.a")
        #expect(encoder.encode(second, token: old.headerValue).headerBlock.first(name: "apns-topic") == "com.example.b")
        #expect(
            encoder.encode(second, token: new.headerValue).headerBlock.first(name: "authorization")
                == "bearer new.token.value")
        #expect(!encoder.encode(second, token: nil).headerBlock.contains(name: "authorization"))
        #expect(encoder.encode(first, token: old.headerValue).headerBlock.count == 8)
    }

    @Test("requests of one job share one block by reference; only :path and apns-id are their own")
    func sharedBlock() throws {
        var encoder = APNsRequestEncoder(authority: "api.push.apple.com", scheme: "https")
        let fields = try APNsRequest(
            token: self.token, topic: "com.example.salvo", pushType: .alert, payload: ByteBuffer(string: "{}")
        ).headers
        let other = try DeviceToken(hex: String(repeating: "cd", count: 32))
        let payload = ByteBuffer(string: "{}")
        let first = encoder.encode(
            try APNsRequest(token: self.token, headers: fields, apnsID: APNsID(high: 1, low: 2), payload: payload),
            token: nil)
        let second = encoder.encode(
            try APNsRequest(token: other, headers: fields, apnsID: APNsID(high: 3, low: 4), payload: payload),
            token: nil)
        #expect(first.sharedHeaders != nil && first.sharedHeaders === second.sharedHeaders)
        #expect(second.headers.map(\.name) == [":path", "apns-id"])
        #expect(second.path == "/3/device/" + String(repeating: "cd", count: 32))
        #expect(second.headers.first(name: "apns-id") == APNsID(high: 3, low: 4).string)
        #expect(first.headers.first(name: "apns-id") == APNsID(high: 1, low: 2).string)
    }

    @Test("certificate connections send no authorization; without apns-id APNs assigns one")
    func minimal() throws {
        var encoder = APNsRequestEncoder(authority: "127.0.0.1:2197", scheme: "http")
        let request = try APNsRequest(
            token: self.token, topic: "com.example.salvo", pushType: .background, payload: ByteBuffer(string: "{}"))
        let encoded = encoder.encode(request, token: nil)
        #expect(!encoded.headerBlock.contains(name: "authorization"))
        #expect(!encoded.headerBlock.contains(name: "apns-id"))
        #expect(encoded.headerBlock.first(name: "apns-priority") == "5")
        #expect(encoded.authority == "127.0.0.1:2197")
        #expect(encoded.scheme == "http")
    }

    @Test("the response's apns-id is parsed only when none was sent; apns-unique-id only in the sandbox")
    func responseIDs() throws {
        let sent = try #require(APNsID("00000000-0000-4000-8000-000000000001"))
        let assigned = "00000000-0000-4000-8000-000000000002"
        let unique = "00000000-0000-4000-8000-000000000003"
        let http2 = HTTP2Response(status: 200, headers: ["apns-id": assigned, "apns-unique-id": unique])
        #expect(APNsResponse(http2, sentAPNsID: sent, readsUniqueID: true).apnsID == sent)
        #expect(APNsResponse(http2, sentAPNsID: nil, readsUniqueID: true).apnsID == APNsID(assigned))
        #expect(APNsResponse(http2, sentAPNsID: nil, readsUniqueID: true).apnsUniqueID == APNsID(unique))
        #expect(APNsResponse(http2, sentAPNsID: nil, readsUniqueID: false).apnsUniqueID == nil)
        let rejected = APNsResponse(
            HTTP2Response(
                status: 410, body: ByteBuffer(string: #"{"reason":"Unregistered","timestamp":1700000000000}"#)),
            sentAPNsID: sent, readsUniqueID: false)
        #expect(rejected.reason == .unregistered)
        #expect(rejected.timestampMilliseconds == 1_700_000_000_000)
    }
}
