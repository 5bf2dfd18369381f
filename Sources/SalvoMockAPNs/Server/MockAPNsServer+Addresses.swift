import NIOCore

extension MockAPNsServer {
    /// Where the listeners ended up (ports chosen by the system when 0 was configured).
    public struct Addresses: Sendable, Hashable, CustomStringConvertible {
        /// The APNs (HTTP/2) listener.
        public var apns: SocketAddress
        /// The admin (HTTP/1.1) listener, when configured.
        public var admin: SocketAddress?
        /// The channel-management (HTTP/2) listener, when configured.
        public var broadcast: SocketAddress?

        public init(apns: SocketAddress, admin: SocketAddress?, broadcast: SocketAddress? = nil) {
            self.apns = apns
            self.admin = admin
            self.broadcast = broadcast
        }

        /// The APNs listener's port.
        public var port: Int { self.apns.port ?? 0 }

        /// `host:port` of the APNs listener (`[v6]:port` for IPv6), for URLs.
        public var apnsEndpoint: String { Self.endpoint(self.apns) }

        /// `host:port` of the admin listener, when configured.
        public var adminEndpoint: String? { self.admin.map(Self.endpoint) }

        /// `host:port` of the channel-management listener, when configured.
        public var broadcastEndpoint: String? { self.broadcast.map(Self.endpoint) }

        private static func endpoint(_ address: SocketAddress) -> String {
            let host = address.ipAddress ?? "unknown"
            let port = address.port ?? 0
            if case .v6 = address { return "[\(host)]:\(port)" }
            return "\(host):\(port)"
        }

        public var description: String {
            "apns \(self.apns)" + (self.admin.map { ", admin \($0)" } ?? "")
                + (self.broadcast.map { ", channels \($0)" } ?? "")
        }
    }
}
