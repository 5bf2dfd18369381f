import SalvoKafka
import Testing

@Suite struct RDKafkaLibraryTests {
    @Test func reportsTheLoadedLibraryVersion() {
        let version = RDKafkaLibrary.version
        print("librdkafka under test: \(version)")
        let major = RDKafkaLibrary.versionNumber >> 24
        #expect(major >= 2, "librdkafka \(version) is older than the 2.x this project builds against")
        #expect(version.hasPrefix("\(major)."))
    }
}
