import SalvoAPNs
import Testing

/// The small header value types: what they accept, what they refuse, and their bytes.
@Suite struct APNsHeaderValueTests {
    @Test func priorities() {
        #expect(APNsPriority.allCases.map(\.rawValue).sorted() == [1, 5, 10])
        for priority in APNsPriority.allCases {
            #expect(APNsPriority(headerValue: priority.headerValue) == priority)
        }
        for bad in ["", "0", "7", "11", "ten", "-5", " 5"] {
            #expect(APNsPriority(headerValue: Array(bad.utf8)) == nil, "\(bad)")
        }
    }

    @Test func expirations() throws {
        #expect(APNsExpiration.immediately.secondsSince1970 == 0)
        #expect(String(decoding: APNsExpiration.immediately.headerValue, as: UTF8.self) == "0")
        let expiration = try APNsExpiration(secondsSince1970: 1_900_000_000)
        #expect(String(decoding: expiration.headerValue, as: UTF8.self) == "1900000000")
        #expect(APNsExpiration(headerValue: expiration.headerValue) == expiration)
        let error = #expect(throws: APNsError.self) { try APNsExpiration(secondsSince1970: -1) }
        #expect(error?.reason == .badExpirationDate)
        for bad in ["", "-1", "12a", "1.5", "99999999999999999999999"] {
            #expect(APNsExpiration(headerValue: Array(bad.utf8)) == nil, "\(bad)")
        }
    }

    @Test func collapseIDsAreLimitedTo64Bytes() throws {
        let longest = String(repeating: "c", count: 64)
        #expect(try APNsCollapseID(longest).headerValue.count == 64)
        let error = #expect(throws: APNsError.self) { try APNsCollapseID(longest + "c") }
        #expect(error?.reason == .badCollapseId)
        // 22 three-byte characters are 66 bytes although only 22 characters.
        #expect(throws: APNsError.self) { try APNsCollapseID(String(repeating: "€", count: 22)) }
        #expect(throws: APNsError.self) { try APNsCollapseID("") }
        #expect(throws: APNsError.self) { try APNsCollapseID("a\nb") }
    }

    @Test func topics() throws {
        #expect(try APNsTopic(String("com.example.app")).string == "com.example.app")
        let literal: APNsTopic = "com.example.app"
        #expect(literal.string == "com.example.app")
        #expect(try APNsTopic(String(repeating: "a", count: 255)).headerValue.count == 255)
        for bad in ["", "com example", "com.example\u{7F}", String(repeating: "a", count: 256), "com.exämple"] {
            let error = #expect(throws: APNsError.self, "\(bad)") { try APNsTopic(bad) }
            #expect(error?.reason == .badTopic)
        }
    }

    @Test func authorizationIsRedactedInDescriptions() {
        let field = APNsHeaderField(name: "authorization", value: "bearer secret.jwt.value")
        #expect(!field.description.contains("secret"))
        #expect(APNsHeaderField(name: "apns-topic", value: "com.example").description == "apns-topic: com.example")
        let authorization = APNsAuthorization(jwt: "secret.jwt.value", issuedAt: 1)
        #expect(!authorization.description.contains("secret"))
        #expect(String(decoding: authorization.headerValue, as: UTF8.self) == "bearer secret.jwt.value")
    }
}
