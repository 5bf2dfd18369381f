import Foundation

/// User plus system CPU time, from getrusage.
enum CPUTime {
    enum Who {
        case process
        /// Terminated children that were waited for.
        case children
    }

    static func current(_ who: Who) -> Double {
        var usage = rusage()
        _ = getrusage(who == .process ? RUSAGE_SELF.rawValue : RUSAGE_CHILDREN.rawValue, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}
