import Foundation
import SalvoTestSupport

/// Runs docker/compose.yaml's services as local `salvo` processes in Compose's order, with
/// ``ComposeRewrite``'s host and path rewriting and nothing else changed: one-shots run to
/// completion, long-running services start and must pass their own health checks, and the last
/// service (the one nothing depends on) is run to completion and returned.
final class ComposeStack {
    let file: ComposeFile
    let rewrite: ComposeRewrite
    /// Long-running services, stopped by ``stop()``.
    private(set) var running: [BackgroundProcess] = []

    init(file: ComposeFile, brokers: String, root: URL) throws {
        self.file = file
        rewrite = try ComposeRewrite(file: file, brokers: brokers, root: root)
    }

    /// The command and environment `service` runs with here.
    func invocation(_ service: ComposeFile.Service) -> (arguments: [String], environment: [String: String]) {
        (
            service.command.map { rewrite.rewrite($0, in: service) },
            service.environment.mapValues { rewrite.rewrite($0, in: service) }
        )
    }

    /// Starts everything but the broker in order; returns the last service's exit status and output.
    func run(finalTimeout: Duration) async throws -> (name: String, status: Int32, stdout: String, stderr: String) {
        let order = try file.startOrder().filter { $0.name != rewrite.brokerService }
        guard let last = order.last, file.isLeaf(last.name) else { throw TestFailure("compose: no final one-shot") }
        for service in order {
            guard service.image?.hasPrefix("salvo") == true else {
                throw TestFailure("compose: \(service.name) is not the Salvo image")
            }
            try rewrite.prepare(service)
            let (arguments, environment) = invocation(service)
            let process = try BackgroundProcess.salvo(service.name, arguments, environment: environment)
            if service.name == last.name || file.isWaitedToComplete(service.name) {
                let timeout = service.name == last.name ? finalTimeout : .seconds(60)
                guard let status = await process.waitForExit(timeout: timeout) else {
                    let output = (process.stdout, process.stderr)
                    await process.stop()
                    throw TestFailure(
                        "\(service.name) still running after \(timeout)\nstdout:\n\(output.0.suffix(3_000))\nstderr:\n\(output.1.suffix(3_000))"
                    )
                }
                let result = (service.name, status, process.stdout, process.stderr)
                await process.stop()
                if service.name == last.name { return result }
                guard status == 0 else {
                    throw TestFailure("\(service.name) exited \(status): \(result.3.suffix(3_000))")
                }
            } else {
                running.append(process)
                if let check = service.healthcheck { try await waitHealthy(service, check: check, process: process) }
            }
        }
        throw TestFailure("compose: unreachable")
    }

    /// Runs the service's `CMD` health check (rewritten) every half second until it succeeds.
    private func waitHealthy(_ service: ComposeFile.Service, check: [String], process: BackgroundProcess) async throws {
        let arguments = check.map { rewrite.rewrite($0, in: service) }
        let executable = URL(fileURLWithPath: arguments[0].hasPrefix("/") ? arguments[0] : "/usr/bin/\(arguments[0])")
        let deadline = ContinuousClock.now + .seconds(90)
        while ContinuousClock.now < deadline {
            guard process.isRunning else { break }
            let result = try await ExternalProcess.run(executable, Array(arguments.dropFirst()), timeout: .seconds(5))
            if result.status == 0 { return }
            try await Task.sleep(for: .milliseconds(500))
        }
        throw TestFailure(
            "\(service.name) never became healthy (\(arguments.joined(separator: " ")))\nstderr:\n\(process.stderr.suffix(3_000))"
        )
    }

    /// Stops the long-running services, last started first (the worker drains before the mock goes).
    func stop() async {
        for process in running.reversed() { await process.stop() }
        running = []
    }
}
