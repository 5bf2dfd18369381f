import Logging
import NIOSSL
import SalvoMockAPNs

/// Starts a mock for one test on 127.0.0.1 port 0 and shuts it down when the test's body ends,
/// whether it returned or threw.
enum MockFixture {
    static func withServer<Result>(
        _ configure: (inout MockAPNsServer.Configuration) throws -> Void = { _ in },
        listeners: [any MockAPNsListener] = [],
        _ body: (MockAPNsServer, MockAPNsServer.Addresses) async throws -> Result
    ) async throws -> Result {
        var configuration = MockAPNsServer.Configuration()
        try configure(&configuration)
        var logger = Logger(label: "salvo.mock-apns.test")
        logger.logLevel = .warning
        let server = try MockAPNsServer(configuration: configuration, listeners: listeners, logger: logger)
        let addresses = try await server.start()
        do {
            let result = try await body(server, addresses)
            await server.shutdown()
            return result
        } catch {
            await server.shutdown()
            throw error
        }
    }

    /// An h2c mock and one client connection to it.
    static func withClient<Result>(
        _ configure: (inout MockAPNsServer.Configuration) throws -> Void = { _ in },
        listeners: [any MockAPNsListener] = [],
        _ body: (MockAPNsServer, TestAPNsClient) async throws -> Result
    ) async throws -> Result {
        try await self.withServer(configure, listeners: listeners) { server, addresses in
            let client = try await TestAPNsClient.connect(port: addresses.port, tls: nil)
            do {
                let result = try await body(server, client)
                await client.close()
                return result
            } catch {
                await client.close()
                throw error
            }
        }
    }
}
