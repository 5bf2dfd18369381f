import Foundation
import SalvoTestSupport

/// An application package that depends on Salvo by version, built the way its authors would
/// build it: Examples/SendOne against a git repository of the working tree (tracked and new
/// files, edits included), committed and tagged `1.0.<seconds>`, resolved with `from: "1.0.0"`.
///
/// Everything lives in `.build-examples/` at the repository root (gitignored): the repository
/// (`salvo`, made anew each time), a copy of the example and its scratch path, so a re-run only
/// rebuilds what changed. A new tag each time, because SwiftPM keeps the repositories it fetched
/// and does not move a tag it already has.
struct ConsumerPackage {
    static let folder = RepositoryFiles.path(".build-examples")
    var repository: String { Self.folder + "/salvo" }
    var package: String { Self.folder + "/SendOne" }
    var executable: String { self.package + "/.build/debug/SendOne" }

    /// Half the cores (at least one): `make test` runs the worker suites beside this build, and
    /// their timing bounds need a core left free. `SALVO_CONSUMER_BUILD_JOBS` overrides it.
    static var buildJobs: Int {
        ProcessInfo.processInfo.environment["SALVO_CONSUMER_BUILD_JOBS"].flatMap { Int($0) }
            ?? max(1, ProcessInfo.processInfo.activeProcessorCount / 2)
    }

    /// Makes the tagged repository and builds the example against it; the build's result.
    func build(timeout: Duration) async throws -> ExternalProcess.Result {
        try await self.makeRepository()
        try self.copyExample()
        return try await ExternalProcess.run(
            "/usr/bin/env", ["swift", "build", "--package-path", self.package, "--jobs", "\(Self.buildJobs)"],
            environment: ["SALVO_PACKAGE_URL": "file://" + self.repository], timeout: timeout)
    }

    private func makeRepository() async throws {
        let manager = FileManager.default
        try? manager.removeItem(atPath: self.repository)
        try manager.createDirectory(atPath: self.repository, withIntermediateDirectories: true)
        let files = try await Self.git(
            ["-C", RepositoryFiles.root.path, "ls-files", "-z", "--cached", "--others", "--exclude-standard"])
        for file in files.split(separator: "\0").map(String.init) where !file.hasPrefix("Examples/") {
            let source = RepositoryFiles.path(file)
            // Regular files only: not a file deleted but not yet committed, nor the `.deps` link.
            let type = (try? manager.attributesOfItem(atPath: source))?[.type] as? FileAttributeType
            guard type == .typeRegular else { continue }
            let target = self.repository + "/" + file
            try manager.createDirectory(
                atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try manager.copyItem(atPath: source, toPath: target)
        }
        let tag = "1.0.\(Int(Date().timeIntervalSince1970))"
        let identity = ["-c", "user.name=Salvo tests", "-c", "user.email=tests@salvo.invalid"]
        _ = try await Self.git(["-C", self.repository, "init", "--quiet"])
        _ = try await Self.git(["-C", self.repository, "add", "--all", "--force"])
        _ = try await Self.git(
            ["-C", self.repository] + identity + ["commit", "--quiet", "--message", "Salvo \(tag)"])
        _ = try await Self.git(["-C", self.repository, "tag", tag])
    }

    /// The example's files, refreshed; its Package.resolved goes, since each tag is new.
    private func copyExample() throws {
        let manager = FileManager.default
        try manager.createDirectory(atPath: self.package + "/Sources", withIntermediateDirectories: true)
        try? manager.removeItem(atPath: self.package + "/Package.resolved")
        for item in ["Package.swift", "Sources/SendOne"] {
            try? manager.removeItem(atPath: self.package + "/" + item)
            try manager.copyItem(
                atPath: RepositoryFiles.path("Examples/SendOne/" + item), toPath: self.package + "/" + item)
        }
    }

    /// Runs git and returns its standard output.
    private static func git(_ arguments: [String]) async throws -> String {
        let result = try await ExternalProcess.run("/usr/bin/git", arguments)
        guard result.status == 0 else {
            throw TestFailure("git \(arguments.joined(separator: " ")) exited \(result.status): \(result.stderr)")
        }
        return result.stdoutText
    }
}
