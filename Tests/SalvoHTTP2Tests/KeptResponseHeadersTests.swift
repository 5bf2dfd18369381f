import NIOCore
import SalvoHTTP2
import Testing

/// `keptResponseHeaders`: a client that reads a few response fields skips copying the others.
@Suite struct KeptResponseHeadersTests {
    @Test func onlyTheKeptFieldsReachTheCaller() throws {
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

    @Test func serversKeepEveryRequestField() throws {
        var configuration = HTTP2SessionHandler.Configuration()
        configuration.keptResponseHeaders = ["apns-id"]
        let connection = try InMemoryConnection(server: configuration)
        defer { connection.close() }
        var headers = HTTP2Headers()
        headers.add(name: "apns-topic", value: "com.example.app")
        _ = connection.send(path: "/3/device/ab", headers: headers)
        try connection.interact()
        #expect(connection.responder.received.first?.request.headers.first(name: "apns-topic") == "com.example.app")
    }

    @Test func namesMustBeLowerCase() {
        var configuration = HTTP2SessionHandler.Configuration()
        configuration.keptResponseHeaders = ["APNs-ID"]
        #expect(throws: HTTP2Error.self) { try configuration.validate() }
    }

    @Test func anEmptyListSharesOneBufferUntilWritten() {
        var first = HTTP2Headers()
        let second = HTTP2Headers()
        first.add(name: "a", value: "1")
        #expect(second.isEmpty)
        #expect(first.count == 1)
        first.removeAll(keepingCapacity: true)
        #expect(first.isEmpty)
        first.add(name: "b", value: "2")
        #expect(first.first(name: "b") == "2")
        #expect(first.first(name: "a") == nil)
    }
}
