import NIOCore
import Testing

@testable import SalvoHTTP2

@Suite struct HeaderNameSetTests {
    private static func contains(_ set: HeaderNameSet, _ name: String) -> Bool {
        Array(name.utf8).withUnsafeBytes { set.contains($0) }
    }

    @Test func matchesWholeNamesByteForByte() {
        let set = HeaderNameSet(["apns-id", "apns-unique-id"])
        #expect(Self.contains(set, "apns-id"))
        #expect(Self.contains(set, "apns-unique-id"))
        // Same length as a member, other bytes: the length mask lets it through to the comparison.
        #expect(!Self.contains(set, ":method"))
        #expect(!Self.contains(set, "apns-ie"))
        // Case matters: HTTP/2 names are lower case, and nghttp2 is told exactly what was sent.
        #expect(!Self.contains(set, "APNS-ID"))
        #expect(!Self.contains(set, "apns-i"))
        #expect(!Self.contains(set, ""))
    }

    @Test func longNamesShareTheTopLengthBit() {
        let long = String(repeating: "x", count: 70)
        let set = HeaderNameSet([long])
        #expect(Self.contains(set, long))
        #expect(!Self.contains(set, String(repeating: "x", count: 80)))
        #expect(!Self.contains(set, String(repeating: "y", count: 70)))
        #expect(!Self.contains(HeaderNameSet([]), "apns-id"))
    }

    @Test func fieldWalkSeesWhatTheEntryWalkSees() {
        var headers: HTTP2Headers = [":path": "/3/device/ab", "apns-id": ""]
        headers.add(name: "authorization", value: String(repeating: "z", count: 300))
        var walked: [(String, String)] = []
        headers.storage.withUnsafeReadableBytes { bytes in
            HTTP2Headers.forEachField(in: bytes) { name, value in
                walked.append((String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
            }
        }
        #expect(walked.map(\.0) == headers.map(\.name))
        #expect(walked.map(\.1) == headers.map(\.value))
        // A walk never leaves the bytes, even of a truncated list.
        var truncated = headers.storage
        truncated.moveWriterIndex(to: truncated.writerIndex - 10)
        var count = 0
        truncated.withUnsafeReadableBytes { bytes in HTTP2Headers.forEachField(in: bytes) { _, _ in count += 1 } }
        #expect(count == 2)
    }
}
