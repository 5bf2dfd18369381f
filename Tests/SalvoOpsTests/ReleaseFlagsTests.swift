import Foundation
import SalvoTestSupport
import Testing

/// The shipped binary's code generation flags have one value, given on the command line: the
/// Makefile's `RELEASE_FLAGS`, which docker/Dockerfile repeats. Package.swift has no unsafe flags,
/// so other packages can depend on Salvo's libraries by version.
@Suite struct ReleaseFlagsTests {
    @Test("Package.swift has no unsafe flags; the Dockerfile builds with the Makefile's RELEASE_FLAGS")
    func releaseFlagsAreGivenOnTheCommandLine() throws {
        let manifest = try RepositoryFiles.text("Package.swift")
        #expect(!manifest.contains(".unsafeFlags("))

        let makefile = try RepositoryFiles.text("Makefile")
        let flags = try #require(
            Self.value(after: "RELEASE_FLAGS := ", in: makefile), "no RELEASE_FLAGS in the Makefile")
        #expect(makefile.contains("build -c release --product salvo $(RELEASE_FLAGS)"))
        let dockerfile = try RepositoryFiles.text("docker/Dockerfile")
        #expect(Self.value(after: "ARG RELEASE_FLAGS=", in: dockerfile) == "\"\(flags)\"")
        #expect(dockerfile.contains("--product salvo --static-swift-stdlib ${RELEASE_FLAGS}"))
    }

    /// The rest of the first line that starts with `prefix`.
    static func value(after prefix: String, in text: String) -> String? {
        text.split(separator: "\n").first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
    }
}
