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

    @Test func emptyListsWithAndWithoutBytesBehaveAlike() {
        var reused: HTTP2Headers = ["x-1": "a"]
        reused.removeAll(keepingCapacity: true)
        var dropped: HTTP2Headers = ["x-1": "a"]
        dropped.removeAll()
        let reserved = HTTP2Headers(minimumCapacity: 64)
        for empty in [HTTP2Headers(), reused, dropped, reserved] {
            #expect(empty == HTTP2Headers())
            #expect(empty.isEmpty && empty.map(\.name).isEmpty && !empty.contains(name: "x-1"))
        }
        var grown = HTTP2Headers()
        grown.add(contentsOf: HTTP2Headers())
        #expect(grown.isEmpty)
        grown.add(contentsOf: ["x-1": "a"])
        grown.add(name: "x-2", value: "b")
        reused.add(name: "x-3", value: "c")
        #expect(grown.map(\.name) == ["x-1", "x-2"])
        #expect(reused.map(\.value) == ["c"])
        // The appended list's bytes are shared, then copied on the first write: the source keeps its fields.
        let source: HTTP2Headers = ["x-1": "a"]
        var appended = HTTP2Headers()
        appended.add(contentsOf: source)
        appended.add(name: "x-2", value: "b")
        #expect(source.count == 1 && source.map(\.name) == ["x-1"])
    }

    @Test func requestPutsPseudoHeadersFirst() {
        let request = HTTP2Request(
            authority: "api.push.apple.com", path: "/3/device/t", headers: ["apns-push-type": "alert"])
        #expect(request.headers.map(\.name) == [":method", ":scheme", ":authority", ":path", "apns-push-type"])
        #expect(request.method == "POST")
        #expect(request.headers.first { $0.isPseudoHeader == false }?.value == "alert")
    }
}
