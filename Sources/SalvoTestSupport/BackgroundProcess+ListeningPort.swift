import Foundation

extension BackgroundProcess {
    /// The TCP port the child listens on, for a server started on port 0 (nghttpd): its socket
    /// inodes matched against /proc/net/tcp. Reading the port back, rather than choosing a free
    /// one first, leaves no moment in which another test can take it. Polls up to `timeout` (a
    /// blocking wait of a few milliseconds at start-up, so synchronous set-up code can call it).
    public func listeningPort(timeout: Duration = .seconds(5)) throws -> Int {
        let pid = processIdentifier
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline, isRunning {
            if let port = Self.listeningPort(of: pid) { return port }
            usleep(10_000)
        }
        throw TestFailure("\(name) (pid \(pid)) did not start listening\nstderr:\n\(stderr.suffix(2_000))")
    }

    private static func listeningPort(of pid: Int32) -> Int? {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
        let inodes = Set(
            descriptors.compactMap { descriptor -> String? in
                guard
                    let target = try? FileManager.default.destinationOfSymbolicLink(
                        atPath: "/proc/\(pid)/fd/\(descriptor)"),
                    target.hasPrefix("socket:[")
                else { return nil }
                return String(target.dropFirst("socket:[".count).dropLast())
            })
        // Read to the end: String(contentsOfFile:) returns only procfs's first page (measured:
        // 4,050 of 190,800 bytes on a busy machine, ~27 sockets), so the child's listening socket
        // was often not in what it read.
        let table =
            (try? FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/net/tcp")).readToEnd())
            .flatMap { String(data: $0, encoding: .utf8) } ?? ""
        for line in table.split(separator: "\n").dropFirst() {
            // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
            let fields = line.split(separator: " ")
            guard fields.count > 9, fields[3] == "0A", inodes.contains(String(fields[9])),
                let portHex = fields[1].split(separator: ":").last, let port = Int(portHex, radix: 16)
            else { continue }
            return port
        }
        return nil
    }
}
