import Foundation
import SalvoTestSupport

/// docker/compose.yaml as data: each service's image, command, environment, volumes, health check
/// and dependencies, as Compose reads them (the subset the file uses), so a test can run the
/// stack's exact commands without Docker.
struct ComposeFile {
    struct Volume: Equatable {
        /// A named volume (`tls`) or a bind mount's host path relative to the file (`./worker.yaml`).
        var source: String
        /// The path inside the container.
        var target: String
        var isBind: Bool { source.hasPrefix(".") || source.hasPrefix("/") }
    }

    struct Service {
        var name: String
        var image: String?
        /// Arguments to the image's entrypoint (`salvo` for the Salvo image).
        var command: [String]
        var environment: [String: String]
        var volumes: [Volume]
        /// Service → condition (`service_healthy`, `service_completed_successfully`).
        var dependsOn: [String: String]
        /// The health check's `CMD` arguments, nil when disabled or absent (`CMD-SHELL` is kept whole).
        var healthcheck: [String]?
    }

    /// The repository-relative folder of the file (bind mounts are relative to it).
    let directory: String
    let services: [String: Service]

    init(_ relativePath: String = "docker/compose.yaml") throws {
        directory = (relativePath as NSString).deletingLastPathComponent
        guard let root = try RepositoryFiles.yamlDocuments(relativePath).first as? [String: Any],
            let services = root["services"] as? [String: [String: Any]]
        else { throw TestFailure("\(relativePath): no services") }
        self.services = try services.reduce(into: [:]) { result, entry in
            result[entry.key] = try Self.service(entry.key, entry.value)
        }
    }

    private static func service(_ name: String, _ raw: [String: Any]) throws -> Service {
        let command = raw["command"].map { value in (value as? [Any])?.map { "\($0)" } ?? ["\(value)"] } ?? []
        let environment = (raw["environment"] as? [String: Any] ?? [:]).mapValues { "\($0)" }
        let volumes = try (raw["volumes"] as? [String] ?? []).map { text -> Volume in
            let parts = text.split(separator: ":").map(String.init)
            guard parts.count >= 2 else { throw TestFailure("\(name): volume \(text) is not SOURCE:TARGET") }
            return Volume(source: parts[0], target: parts[1])
        }
        let dependsOn = (raw["depends_on"] as? [String: Any] ?? [:]).compactMapValues {
            ($0 as? [String: Any])?["condition"] as? String
        }
        var healthcheck: [String]?
        if let check = raw["healthcheck"] as? [String: Any], check["disable"] as? Bool != true,
            let test = (check["test"] as? [Any])?.map({ "\($0)" }), test.first == "CMD"
        {
            healthcheck = Array(test.dropFirst())
        }
        return Service(
            name: name, image: raw["image"] as? String, command: command, environment: environment, volumes: volumes,
            dependsOn: dependsOn, healthcheck: healthcheck)
    }

    /// Services in an order that respects `depends_on` (ties by name), as `docker compose up` starts them.
    func startOrder() throws -> [Service] {
        var ordered: [Service] = []
        var placed: Set<String> = []
        while placed.count < services.count {
            let ready = services.values.filter {
                !placed.contains($0.name) && Set($0.dependsOn.keys).isSubset(of: placed)
            }
            guard let next = ready.min(by: { $0.name < $1.name }) else {
                throw TestFailure("compose: a dependency cycle")
            }
            ordered.append(next)
            placed.insert(next.name)
        }
        return ordered
    }

    /// Whether another service waits for `name` to finish (a one-shot such as `topics`).
    func isWaitedToComplete(_ name: String) -> Bool {
        services.values.contains { $0.dependsOn[name] == "service_completed_successfully" }
    }

    /// Whether no service depends on `name` (the stack's last step, the load test).
    func isLeaf(_ name: String) -> Bool {
        !services.values.contains { $0.dependsOn[name] != nil }
    }
}
