import Glibc
import SalvoTestSupport

/// A loopback TCP port nothing listens on: bound to port 0 to get a free one, then closed.
enum ClosedPort {
    static func find() throws -> UInt16 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw TestFailure("socket() failed") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        // The sockaddr_in is reinterpreted as the generic sockaddr the socket calls take.
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(descriptor, generic, length) == 0 && getsockname(descriptor, generic, &length) == 0
            }
        }
        guard bound else { throw TestFailure("bind() on 127.0.0.1 failed") }
        return UInt16(bigEndian: address.sin_port)
    }
}
