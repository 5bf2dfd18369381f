import NIOCore
import NIOEmbedded
import SalvoHTTP2
import Testing

/// Requests submitted with a tag report to the handler's `responseDelegate` instead of a promise;
/// `keptResponseHeaders` drops the other response fields.
@Suite struct TaggedSubmissionTests {
    final class Recorder: HTTP2ClientResponseDelegate {
        var results: [UInt64: Result<HTTP2Response, HTTP2Error>] = [:]
        var order: [UInt64] = []

        func responseReceived(tag: UInt64, _ result: Result<HTTP2Response, HTTP2Error>) {
            self.order.append(tag)
            self.results[tag] = result
        }
    }

    private func request(_ path: String, body: String = "") -> HTTP2Request {
        HTTP2Request(authority: "localhost", path: path, body: ByteBuffer(string: body))
    }

    @Test func taggedRequestsReportEachResponseOnceWithItsTag() throws {
        let connection = try InMemoryConnection()
        defer { connection.close() }
        let recorder = Recorder()
        connection.clientHandler.responseDelegate = recorder
        for tag in [7, 3, 11] as [UInt64] {
            connection.clientHandler.submit(self.request("/t/\(tag)", body: "{}"), tag: tag)
        }
        try connection.interact()
        #expect(Set(recorder.order) == [7, 3, 11])
        #expect(recorder.order.count == 3)
        for tag in [7, 3, 11] as [UInt64] {
            guard case .success(let response) = recorder.results[tag] else {
                Issue.record("no response for tag \(tag)")
                continue
            }
            #expect(response.headers.first(name: "x-path") == "/t/\(tag)")
        }
    }

    @Test func taggedRequestRefusedAtOnceIsReportedBeforeSubmitReturns() throws {
        let connection = try InMemoryConnection()
        defer { connection.close() }
        let recorder = Recorder()
        connection.clientHandler.responseDelegate = recorder
        connection.close()
        connection.clientHandler.submit(self.request("/late"), tag: 42)
        guard case .failure(let error) = recorder.results[42] else {
            Issue.record("a request on a closed connection must fail at once")
            return
        }
        #expect(error.code == .notSent)
    }

    @Test func taggedRequestsFailWhenTheConnectionGoes() throws {
        let connection = try InMemoryConnection(policy: .hold)
        defer { connection.close() }
        let recorder = Recorder()
        connection.clientHandler.responseDelegate = recorder
        connection.clientHandler.submit(self.request("/held"), tag: 1)
        try connection.interact()
        _ = try connection.client.close().wait()
        guard case .failure(let error) = recorder.results[1] else {
            Issue.record("the held request must fail when the connection closes")
            return
        }
        #expect(error.code == .connectionLost)
    }

    @Test func keptResponseHeadersDropTheOtherFields() throws {
        var configuration = HTTP2SessionHandler.Configuration()
        configuration.keptResponseHeaders = ["apns-id"]
        let connection = try InMemoryConnection(client: configuration)
        defer { connection.close() }
        let future = connection.send(path: "/filtered", body: "x")
        try connection.interact()
        let response = try #require(future.settled?.response)
        #expect(response.status == 200)
        #expect(response.headers.first(name: "apns-id") == "id-1")
        #expect(!response.headers.contains(name: "x-path"))
        #expect(response.headers.count == 1)
        #expect(response.body.map { String(buffer: $0) } == "x")
    }

    @Test func keptResponseHeadersMustBeLowerCase() {
        var configuration = HTTP2SessionHandler.Configuration()
        configuration.keptResponseHeaders = ["APNs-ID"]
        #expect(throws: HTTP2Error.self) { try configuration.validate() }
    }
}
