import Foundation

/// Pins every thread of a process to a set of CPUs (Linux), so a benchmark can keep the load
/// generator and the process it measures off each other's cores.
///
/// `sched_setaffinity` acts on one thread; threads inherit their creator's mask, so pinning
/// every thread listed in `/proc/<pid>/task` covers the process, as long as it is called again
/// after threads created meanwhile (callers pin once at start and once when measuring starts).
enum CPUAffinity {
    /// CPUs this machine has online.
    static var onlineCPUs: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    /// Returns false if the process is gone or the kernel refused (the benchmark then runs unpinned).
    @discardableResult
    static func pin(process pid: pid_t, to cpus: ClosedRange<Int>) -> Bool {
        guard let threads = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") else {
            return false
        }
        var set = cpu_set_t()
        withUnsafeMutableBytes(of: &set) { bytes in
            for cpu in cpus where cpu / 8 < bytes.count { bytes[cpu / 8] |= UInt8(1) << UInt8(cpu % 8) }
        }
        guard let setAffinity else { return false }
        var pinned = true
        for thread in threads.compactMap({ pid_t($0) })
        where setAffinity(thread, MemoryLayout<cpu_set_t>.size, &set) != 0 {
            pinned = false
        }
        return pinned
    }

    /// glibc's `sched_setaffinity`, looked up at run time: Swift's Glibc module does not import
    /// it (it is declared only under `_GNU_SOURCE`).
    private static let setAffinity: (@convention(c) (pid_t, Int, UnsafeRawPointer) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "sched_setaffinity") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (pid_t, Int, UnsafeRawPointer) -> Int32).self)
    }()
}
