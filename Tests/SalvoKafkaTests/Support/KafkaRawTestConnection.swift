import Foundation
import SalvoTestSupport

#if canImport(Glibc)
import Glibc
private let streamSocket = Int32(SOCK_STREAM.rawValue)
#elseif canImport(Darwin)
import Darwin
private let streamSocket = SOCK_STREAM
#endif

/// A blocking loopback TCP client speaking Kafka frames byte by byte, for the protocol paths
/// librdkafka never takes (SaslHandshake v0, SaslAuthenticate v2, pipelined requests, requests
/// a broker must refuse). Every read waits at most `timeout`, so a test cannot hang on it.
final class KafkaRawTestConnection {
    private let descriptor: Int32

    init(port: Int, timeout: Duration = .seconds(5)) throws {
        descriptor = socket(AF_INET, streamSocket, 0)
        guard descriptor >= 0 else { throw TestFailure("socket() failed: errno \(errno)") }
        var limit = timeval(tv_sec: Int(timeout.components.seconds), tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            throw TestFailure("cannot connect to 127.0.0.1:\(port): errno \(errno)")
        }
    }

    deinit { close(descriptor) }

    func write(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw TestFailure("send failed: errno \(errno)") }
            sent += count
        }
    }

    /// The next frame's payload (without its size), or `nil` when the server closed the
    /// connection first. Throws if nothing arrives within the timeout.
    func receiveFrame() throws -> [UInt8]? {
        guard let size = try receive(count: 4) else { return nil }
        let length = size.reduce(0) { $0 << 8 | Int($1) }
        return try receive(count: length)
    }

    private func receive(count: Int) throws -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var received = 0
        while received < count {
            let result = bytes[received...].withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if result == 0 { return nil }
            guard result > 0 else { throw TestFailure("no answer from the front end (errno \(errno))") }
            received += result
        }
        return bytes
    }
}
