import SalvoHTTP2
import Testing

@Suite("HTTP2Headers byte fields")
struct HTTP2HeadersByteFieldTests {
    @Test("fields added as bytes read back like fields added as strings")
    func bytes() {
        var headers = HTTP2Headers()
        headers.add(name: ":path", value: Array("/3/device/abcd".utf8))
        headers.add(name: Array("apns-topic".utf8), value: Array("com.example.salvo".utf8))
        headers.add(name: "apns-priority", value: "10")
        #expect(headers.count == 3)
        #expect(headers.first(name: ":path") == "/3/device/abcd")
        #expect(headers.first(name: "APNS-Topic") == "com.example.salvo")
        #expect(headers.map(\.name) == [":path", "apns-topic", "apns-priority"])
        var strings = HTTP2Headers()
        strings.add(name: ":path", value: "/3/device/abcd")
        strings.add(name: "apns-topic", value: "com.example.salvo")
        strings.add(name: "apns-priority", value: "10")
        #expect(headers == strings)
    }
}
