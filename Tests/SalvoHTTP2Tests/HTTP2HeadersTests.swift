import NIOCore
import SalvoHTTP2
import Testing

@Suite struct HTTP2HeadersTests {
    @Test func keepsOrderAndDuplicates() {
        var headers: HTTP2Headers = ["apns-topic": "a", "apns-id": "1"]
        headers.add(name: "apns-topic", value: "b")
        #expect(headers.count == 3)
        #expect(headers.map(\.name) == ["apns-topic", "apns-id", "apns-topic"])
        #expect(headers.values(name: "apns-topic") == ["a", "b"])
        #expect(headers.first(name: "apns-topic") == "a")
        #expect(headers.count(name: "apns-topic") == 2)
    }

    @Test func matchesNamesIgnoringASCIICaseOnly() {
        let headers: HTTP2Headers = ["content-type": "application/json", "x-1": "y"]
        #expect(headers.first(name: "Content-Type") == "application/json")
        #expect(headers.contains(name: "CONTENT-TYPE"))
        #expect(!headers.contains(name: "content-typ"))
        #expect(!headers.contains(name: "x-\u{11}"))
        #expect(headers.first(name: "missing") == nil)
    }

    @Test func bytesAndEmptyValuesRoundTrip() {
        var headers = HTTP2Headers()
        headers.add(name: "authorization", value: ByteBuffer(string: "bearer abc"))
        headers.add(name: "empty", value: "")
        #expect(headers.firstBytes(name: "authorization") == ByteBuffer(string: "bearer abc"))
        #expect(headers.first(name: "empty") == "")
        #expect(
            Array(headers) == [
                HTTP2Header(name: "authorization", value: "bearer abc"), HTTP2Header(name: "empty", value: ""),
            ])
    }

    @Test func appendingListsAndEquality() {
        var first: HTTP2Headers = ["a": "1"]
        let second: HTTP2Headers = ["b": "2", "c": "3"]
        first.add(contentsOf: second)
        #expect(first == HTTP2Headers([("a", "1"), ("b", "2"), ("c", "3")]))
        #expect(first != second)
        #expect(HTTP2Headers().isEmpty)
    }

    @Test func requestPutsPseudoHeadersFirst() {
        let request = HTTP2Request(
            authority: "api.push.apple.com", path: "/3/device/t", headers: ["apns-push-type": "alert"])
        #expect(request.headers.map(\.name) == [":method", ":scheme", ":authority", ":path", "apns-push-type"])
        #expect(request.method == "POST")
        #expect(request.headers.first { $0.isPseudoHeader == false }?.value == "alert")
    }
}
