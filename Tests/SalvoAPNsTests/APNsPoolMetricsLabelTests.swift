import Crypto
import Testing

@testable import SalvoAPNs

/// The labels of the pools' metrics stay few and as docs/metrics.md states them.
@Suite("APNs pool metric labels")
struct APNsPoolMetricsLabelTests {
    @Test("status classes: 2xx, 4xx, 5xx, other")
    func statusClasses() {
        #expect(APNsStatusClass(status: 200) == .success)
        #expect(APNsStatusClass(status: 410).rawValue == "4xx")
        #expect(APNsStatusClass(status: 503).rawValue == "5xx")
        #expect(APNsStatusClass(status: 302) == .other)
        #expect(APNsStatusClass(status: 999) == .other)
        #expect(APNsStatusClass.allCases.map(\.index) == Array(0..<APNsStatusClass.allCases.count))
    }

    @Test("a pool is named <credential>/<environment> unless its configuration names it")
    func poolNames() throws {
        let token = try APNsTokenCredential(
            keyID: "ABCDE12345", teamID: "TEAM123456", privateKey: P256.Signing.PrivateKey())
        #expect(APNsConnectionPool.label(.token(token), .production) == "TEAM123456.ABCDE12345/production")
        #expect(APNsConnectionPool.label(.token(token), .sandbox) == "TEAM123456.ABCDE12345/sandbox")
        #expect(APNsConnectionPool.Configuration().name == nil)
    }
}
