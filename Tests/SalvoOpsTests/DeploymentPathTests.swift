import Foundation
import SalvoTestSupport
import Testing

/// Every file path the Dockerfile, the Compose file and the Kubernetes manifests name exists, or is
/// made by them: copied into the image, mounted from the repository, generated into a shared
/// volume by a one-shot, or under a mount the manifest declares.
@Suite("Paths the deployment files name")
struct DeploymentPathTests {
    /// Absolute paths under the image's own folders inside an argument (`--tls-cert=/etc/...`,
    /// `--token-key=ID:TEAM:/etc/...`, `/loadtest/...`).
    static func paths(in text: String) -> [String] {
        let pattern = #/(?:^|[=:\s"])(/(?:etc/salvo|loadtest|var/lib/salvo)(?:/[A-Za-z0-9._-]+)*)/#
        return text.matches(of: pattern).map { String($0.output.1) }
    }

    /// Flags whose path is written by the command: only the folder must exist.
    static let outputFlags = ["--record", "--report-dir", "--generate-tls"]

    @Test("the Dockerfile copies only what exists, and its CMD names a file it puts in the image")
    func dockerfile() throws {
        let image = try DockerImage.shipped()
        for source in image.sources {
            #expect(
                FileManager.default.fileExists(atPath: RepositoryFiles.path(source)), "COPY \(source): not in the repo")
        }
        let text = try RepositoryFiles.text("docker/Dockerfile")
        let command = try #require(text.split(separator: "\n").first { $0.hasPrefix("CMD ") })
        for path in Self.paths(in: String(command)) {
            #expect(image.has(path), "the Dockerfile's CMD names \(path), which the image does not hold")
        }
        #expect(!text.contains("ENV SALVO_"), "an image-level SALVO_* variable would win over the operator's file")
    }

    @Test("compose: every path a service names is in the image, mounted, or generated into its volume")
    func compose() async throws {
        let image = try DockerImage.shipped()
        let generated = try await Self.generatedTLSFiles()
        let compose = try #require(try RepositoryFiles.yamlDocuments("docker/compose.yaml").first as? [String: Any])
        let services = try #require(compose["services"] as? [String: [String: Any]])
        for (name, service) in services where (service["image"] as? String)?.hasPrefix("salvo") == true {
            var provided: [String: Set<String>?] = [:]  // mount target → the files known there (nil: any)
            for volume in service["volumes"] as? [String] ?? [] {
                let parts = volume.split(separator: ":").map(String.init)
                let (source, target) = (parts[0], parts[1])
                if source.hasPrefix("./") {
                    let file = "docker/" + source.dropFirst(2)
                    #expect(FileManager.default.fileExists(atPath: RepositoryFiles.path(file)), "\(name): \(file)")
                    provided[target] = [target]
                } else if source == "tls" {
                    provided[target] = Set(generated.map { "\(target)/\($0)" })
                } else {
                    provided[target] = .some(nil)
                }
            }
            var texts = (service["command"] as? [String] ?? []).map { ($0, false) }
            if provided["/etc/salvo/worker.yaml"] != nil {
                texts.append((try RepositoryFiles.text("docker/worker.yaml"), true))
            }
            try Self.check(texts, service: name, image: image, mounts: provided)
        }
    }

    @Test("Kubernetes: every path a container names is in the image or under one of its mounts")
    func kubernetes() throws {
        let image = try DockerImage.shipped()
        let configMap = try #require(
            try RepositoryFiles.manifests("ops/kubernetes/configmap.yaml", kind: "ConfigMap").first)
        let configData = try #require(configMap["data"] as? [String: String])
        let manifests = [
            ("ops/kubernetes/deployment.yaml", "Deployment"), ("ops/kubernetes/loadtest-job.yaml", "Job"),
            ("ops/kubernetes/staging-mock/deployment.yaml", "Deployment"),
        ]
        for (file, kind) in manifests {
            for manifest in try RepositoryFiles.manifests(file, kind: kind) {
                let pod = try #require(
                    ((manifest["spec"] as? [String: Any])?["template"] as? [String: Any])?["spec"] as? [String: Any])
                let volumes = pod["volumes"] as? [[String: Any]] ?? []
                for container in pod["containers"] as? [[String: Any]] ?? [] {
                    var mounts: [String: Set<String>?] = [:]
                    var texts = (container["args"] as? [String] ?? []).map { ($0, false) }
                    for mount in container["volumeMounts"] as? [[String: Any]] ?? [] {
                        let target = try #require(mount["mountPath"] as? String)
                        let volume = volumes.first { $0["name"] as? String == mount["name"] as? String }
                        #expect(volume != nil, "\(file): mount \(target) names no volume")
                        if let key = mount["subPath"] as? String,
                            (volume?["configMap"] as? [String: Any])?["name"] as? String == "salvo-worker-config"
                        {
                            let yaml = try #require(configData[key], "\(file): the ConfigMap has no key \(key)")
                            texts.append((yaml, true))
                            mounts[target] = [target]
                        } else {
                            mounts[target] = .some(nil)
                        }
                    }
                    try Self.check(texts, service: file, image: image, mounts: mounts)
                }
            }
        }
    }

    /// Each path in `texts` exists in the image or under a mount; for a configuration file
    /// (`isConfiguration`), every path it names is read, so it must exist.
    static func check(
        _ texts: [(String, Bool)], service: String, image: DockerImage, mounts: [String: Set<String>?]
    ) throws {
        for (text, isConfiguration) in texts {
            let isOutput = !isConfiguration && outputFlags.contains { text.hasPrefix($0) }
            for path in paths(in: text) {
                let needed = isOutput && text.contains("=") ? (path as NSString).deletingLastPathComponent : path
                let mounted = mounts.contains { target, files in
                    guard needed == target || needed.hasPrefix(target + "/") else { return false }
                    return files.map { $0.contains(needed) || needed == target } ?? true
                }
                #expect(image.has(needed) || mounted, "\(service): \(path) is neither in the image nor mounted")
            }
        }
    }

    /// The files `salvo mock-apns --generate-tls` writes (the Compose `tls` one-shot and the
    /// staging mock's Secret), by running it.
    static func generatedTLSFiles() async throws -> [String] {
        let directory = try ExternalProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await ExternalProcess.run(
            try ExternalProcess.salvoExecutable(),
            ["mock-apns", "--generate-tls", directory.path, "--bundle-id", "com.example.salvo"])
        #expect(result.status == 0, "\(result.stderr)")
        return try FileManager.default.contentsOfDirectory(atPath: directory.path)
    }
}

/// What the shipped Dockerfile's runtime stage puts in the image: copied files and folders, and
/// the folders it creates.
struct DockerImage {
    var sources: [String] = []
    var files: Set<String> = []
    var folders: Set<String> = []

    static func shipped() throws -> DockerImage {
        var image = DockerImage()
        let lines = try RepositoryFiles.text("docker/Dockerfile").split(separator: "\n").map(String.init)
        let runtime = lines.lastIndex { $0.hasPrefix("FROM ") } ?? 0
        for line in lines[runtime...] {
            let words = line.split(separator: " ").map(String.init)
            if words.first == "COPY", !line.contains("--from=") {
                let (source, target) = (words[1], words[2])
                image.sources.append(source)
                let full = RepositoryFiles.path(source)
                var isFolder: ObjCBool = false
                if FileManager.default.fileExists(atPath: full, isDirectory: &isFolder), isFolder.boolValue {
                    image.folders.insert(target)
                    for file in FileManager.default.subpaths(atPath: full) ?? [] {
                        image.files.insert("\(target)/\(file)")
                    }
                } else {
                    image.files.insert(target)
                }
            }
            if let install = line.range(of: "install -d") {
                for word in line[install.upperBound...].split(separator: " ") where word.hasPrefix("/") {
                    image.folders.insert(String(word))
                }
            }
        }
        return image
    }

    func has(_ path: String) -> Bool {
        files.contains(path) || folders.contains(path) || files.contains { $0.hasPrefix(path + "/") }
    }
}
