import SalvoAPNs
import Testing

@Suite struct APNsEnvironmentTests {
    @Test func appleGatewaysAreTheDocumentedHosts() {
        #expect(APNsEnvironment.production.host == "api.push.apple.com")
        #expect(APNsEnvironment.sandbox.host == "api.sandbox.push.apple.com")
        #expect(APNsEnvironment.production.port == 443)
        #expect(APNsEnvironment.custom(host: "127.0.0.1", port: 2197, behavesAs: .sandbox).kind == .sandbox)
    }
}
