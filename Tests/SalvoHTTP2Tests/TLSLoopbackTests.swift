import NIOCore
import NIOPosix
import NIOSSL
import SalvoHTTP2
import SalvoTestSupport
import Testing

/// Our client ⇄ our server over TLS 1.2+/ALPN h2 with a CA made at test time, the shape of the
/// APNs connection against the mock APNs.
@Suite(.timeLimit(.minutes(1))) struct TLSLoopbackTests {
    @Test func clientAndServerTalkOverVerifiedTLS() async throws {
        let group = MultiThreadedEventLoopGroup.singleton
        let authority = try TestPKI()
        defer { authority.remove() }
        let server = try await LoopbackServer.start(group: group, tls: try authority.serverContext())
        let client = try await LoopbackClient.connect(
            group: group, port: server.port, tls: try authority.clientContext(), serverHostname: "localhost")

        let responses = try await client.send(
            count: 300, authority: "localhost", scheme: "https", path: { "/3/device/\($0)" }, body: #"{"aps":{}}"#)
        #expect(responses.count == 300)
        #expect(
            responses.enumerated().allSatisfy { index, response in
                response.status == 200 && response.headers.first(name: "x-path") == "/3/device/\(index)"
                    && response.body.map { String(buffer: $0) } == #"{"aps":{}}"#
            })
        await client.close()
        await server.close()
    }
}
