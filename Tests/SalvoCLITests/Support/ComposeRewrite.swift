import Foundation
import SalvoTestSupport

/// How a Compose stack's commands become local processes: what differs between containers on a
/// Compose network and processes on one host, and nothing else.
///
/// - `kafka:9092` (the broker service) → the test broker;
/// - `<service>:<port>` (another container) and a service's own listen addresses (`0.0.0.0:<port>`,
///   `127.0.0.1:<port>` in its health check) → `127.0.0.1:<a free port>` for that service and port;
/// - container paths → folders: a named volume under the run's folder, a bind mount → a rewritten
///   copy of the file, a path the image ships (`/loadtest`, the Dockerfile's `COPY loadtest`) → the
///   repository's folder.
struct ComposeRewrite {
    let file: ComposeFile
    /// The service the test broker replaces, and the broker list.
    let brokerService: String
    let brokers: String
    /// The run's folder: `volumes/<name>`, `binds/<file>`.
    let root: URL
    /// Paths the image ships, container path → repository-relative folder.
    static let imagePaths = ["/loadtest": "loadtest"]
    /// Local port of each service's container port.
    private(set) var ports: [String: [Int: Int]] = [:]

    init(file: ComposeFile, brokerService: String = "kafka", brokers: String, root: URL) throws {
        self.file = file
        self.brokerService = brokerService
        self.brokers = brokers
        self.root = root
        for service in file.services.values where service.name != brokerService {
            let texts = service.command + service.environment.values + (service.healthcheck ?? [])
            for text in texts {
                for match in text.matches(of: /0\.0\.0\.0:(\d+)/) {
                    let port = Int(match.1)!
                    if ports[service.name]?[port] == nil {
                        ports[service.name, default: [:]][port] = Int(try ClosedPort.find())
                    }
                }
            }
        }
    }

    /// One argument, environment value or configuration string of `service`, rewritten.
    func rewrite(_ text: String, in service: ComposeFile.Service) -> String {
        let text = text.replacing(/([A-Za-z0-9.\-]+):(\d+)/) { match in
            let host = String(match.1)
            let port = Int(match.2)!
            if host == brokerService { return brokers }
            if ["0.0.0.0", "127.0.0.1", "localhost"].contains(host), let local = ports[service.name]?[port] {
                return "127.0.0.1:\(local)"
            }
            if let local = ports[host]?[port] { return "127.0.0.1:\(local)" }
            return String(match.0)
        }
        // One pass, a container path only where a path starts (after `=`, `:`, a space or at the
        // start) and ends (before `/` or the end): `/loadtest` must not match `/loadtest-report`.
        let map = pathMap(for: service)
        let targets = map.keys.sorted { $0.count > $1.count }.map { NSRegularExpression.escapedPattern(for: $0) }
        guard let paths = try? Regex("(^|[=: ])(" + targets.joined(separator: "|") + ")(?=/|$)") else { return text }
        let hosts = text
        return hosts.replacing(paths) { match in
            let whole = String(hosts[match.range])
            let target = map.keys.filter { whole.hasSuffix($0) }.max { $0.count < $1.count }!
            return whole.dropLast(target.count) + map[target]!
        }
    }

    /// Container path → local path for `service`: its volumes and the image's own folders.
    func pathMap(for service: ComposeFile.Service) -> [String: String] {
        var map = Self.imagePaths.mapValues { RepositoryFiles.path($0) }
        for volume in service.volumes {
            map[volume.target] =
                volume.isBind
                ? root.appendingPathComponent("binds/\(service.name)/\((volume.source as NSString).lastPathComponent)")
                    .path
                : root.appendingPathComponent("volumes/\(volume.source)").path
        }
        return map
    }

    /// Creates `service`'s volume folders and writes its bind-mounted YAML files rewritten: every
    /// string as ``rewrite(_:in:)`` does, and every `{host: <service>, port: N}` mapping pointed at
    /// that service's local port. Written as JSON, which every YAML reader reads.
    func prepare(_ service: ComposeFile.Service) throws {
        for volume in service.volumes {
            let local = URL(fileURLWithPath: pathMap(for: service)[volume.target]!)
            guard volume.isBind else {
                try FileManager.default.createDirectory(at: local, withIntermediateDirectories: true)
                continue
            }
            let source = (file.directory as NSString).appendingPathComponent(volume.source)
            guard let document = try RepositoryFiles.yamlDocuments(source).first else {
                throw TestFailure("\(source) is empty")
            }
            try FileManager.default.createDirectory(
                at: local.deletingLastPathComponent(), withIntermediateDirectories: true)
            let rewritten = rewriteTree(document, in: service)
            try JSONSerialization.data(withJSONObject: rewritten, options: [.prettyPrinted, .sortedKeys]).write(
                to: local)
        }
    }

    private func rewriteTree(_ value: Any, in service: ComposeFile.Service) -> Any {
        switch value {
        case let text as String:
            return rewrite(text, in: service)
        case let list as [Any]:
            return list.map { rewriteTree($0, in: service) }
        case var mapping as [String: Any]:
            if let host = mapping["host"] as? String, let port = mapping["port"] as? Int, let local = ports[host]?[port]
            {
                mapping["host"] = "127.0.0.1"
                mapping["port"] = local
            }
            return mapping.mapValues { rewriteTree($0, in: service) }
        default:
            return value
        }
    }
}
