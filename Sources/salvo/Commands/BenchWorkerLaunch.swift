import Foundation

/// How `salvo bench worker` starts its `salvo worker` child: which executable, under which
/// command prefix, and how long a measurement may take.
///
/// Exists for the instruction gate (`make bench-instructions`): there the child is a copy of the
/// release binary stripped of debug info (valgrind 3.19 cannot read its DWARF 5), run under
/// `valgrind --tool=callgrind`, about 50 times slower than natively, while the mock and the
/// producer stay native in this process so that only the worker's instructions are counted.
struct BenchWorkerLaunch {
    /// Nil: this salvo.
    var executable: String?
    /// Words put before the executable (split at spaces, so paths in it must have none).
    var wrapper: [String] = []
    /// For each wait: the first 5 % accepted, all accepted, the worker's exit after SIGTERM.
    var timeout: Duration = .seconds(1_800)

    static let native = BenchWorkerLaunch()

    init(executable: String? = nil, wrapper: String? = nil, timeout: Duration = .seconds(1_800)) {
        self.executable = executable
        self.wrapper = wrapper.map { $0.split(separator: " ").map(String.init) } ?? []
        self.timeout = timeout
    }

    /// A process ready to run `worker --config <file>`.
    func process(config file: String) -> Process {
        let salvo = executable ?? URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        let words = wrapper + [salvo, "worker", "--config", file]
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.resolve(words[0]))
        process.arguments = Array(words.dropFirst())
        return process
    }

    /// Waits for a worker told to stop: a wrapper such as callgrind writes its output only on a
    /// clean exit, so it gets the full timeout before SIGKILL, and a kill is reported.
    func awaitExit(of worker: Process) async throws {
        let deadline = ContinuousClock.now + timeout
        while worker.isRunning {
            guard ContinuousClock.now < deadline else {
                kill(worker.processIdentifier, SIGKILL)
                throw CommandFailure("the worker did not exit within \(timeout) of SIGTERM; killed")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// A bare command name looked up in PATH, as a shell would.
    private static func resolve(_ command: String) -> String {
        guard !command.contains("/") else { return command }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":")
        where FileManager.default.isExecutableFile(atPath: "\(directory)/\(command)") {
            return "\(directory)/\(command)"
        }
        return command
    }
}
