import SalvoHTTP2
import Testing

@Suite struct NGHTTP2LibraryTests {
    @Test func reportsTheLoadedLibraryVersion() {
        let parts = NGHTTP2Library.version.split(separator: ".").compactMap { Int($0) }
        #expect(parts.count == 3, "unexpected version string \(NGHTTP2Library.version)")
        #expect((parts.first ?? 0) >= 1)
    }
}
