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

    @Test("a librdkafka older than 2.3 is warned about, naming both versions; 2.3 and newer are not")
    func warnsBelowTheMinimumVersion() throws {
        let debian = try #require(RDKafkaLibrary.warning(forVersionNumber: 0x0200_02ff, version: "2.0.2"))
        #expect(debian.hasPrefix("librdkafka 2.0.2 is older than the 2.3.0 Salvo needs"))
        #expect(RDKafkaLibrary.warning(forVersionNumber: 0x0203_00ff, version: "2.3.0") == nil)
        #expect(RDKafkaLibrary.warning(forVersionNumber: 0x0210_00ff, version: "2.16.0") == nil)
        #expect(RDKafkaLibrary.warning(forVersionNumber: 0x0300_00ff, version: "3.0.0") == nil)
    }
}
