import Foundation
import SalvoFuzzing
import SalvoTestSupport
import Testing

/// Every file of the committed fuzz corpus (`Fuzz/Corpus/<target>/`: the seeds, and every input a
/// fuzzer ever crashed on, minimized) through the same entry points the libFuzzer binaries call,
/// so `make test` keeps each past crash fixed without building the fuzzers.
@Suite("Fuzz corpus replay")
struct FuzzCorpusReplayTests {
    static func corpus(_ target: FuzzTarget) -> [URL] {
        let folder = RepositoryFiles.root.appendingPathComponent("Fuzz/Corpus/\(target.rawValue)")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { folder.appendingPathComponent($0) }
    }

    @Test(
        "every corpus file runs through its entry point without a crash or a broken invariant",
        arguments: FuzzTarget.allCases)
    func replay(_ target: FuzzTarget) throws {
        let files = Self.corpus(target)
        #expect(files.count >= 5, "Fuzz/Corpus/\(target.rawValue) should hold seeds")
        for file in files {
            let bytes = Array(try Data(contentsOf: file))
            do throws(FuzzFinding) {
                try target.run(bytes)
            } catch {
                Issue.record("\(file.lastPathComponent): \(error)")
            }
        }
    }

    @Test("the valid worker-configuration seeds load, key and certificate files included")
    func configurationSeedsReachPastCredentials() throws {
        for name in ["minimal.yaml", "example-adapted.yaml", "h2c-mock.yaml"] {
            let file = RepositoryFiles.root.appendingPathComponent(
                "Fuzz/Corpus/\(FuzzTarget.workerConfiguration.rawValue)/\(name)")
            #expect(FuzzTarget.workerConfigurationLoads(Array(try Data(contentsOf: file))), "\(name) should load")
        }
    }

    @Test("every target has a corpus folder and the Makefile runs it")
    func everyTargetIsFuzzed() throws {
        let makefile = try RepositoryFiles.text("Makefile")
        for target in FuzzTarget.allCases {
            #expect(!Self.corpus(target).isEmpty, "no corpus for \(target.rawValue)")
        }
        #expect(makefile.contains("fuzz:"))
        #expect(makefile.contains("FUZZ_SECONDS"))
    }
}
