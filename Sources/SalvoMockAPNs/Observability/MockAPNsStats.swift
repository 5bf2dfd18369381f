/// A snapshot of the mock's totals since it started, as `/stats` serves it (snake_case JSON) and
/// ``MockAPNsServer/stats()`` returns it. Tests compare it with what their clients saw.
public struct MockAPNsStats: Sendable, Hashable, Codable {
    /// The scenario in force.
    public var scenario: String
    /// Notifications answered 200.
    public var accepted: Int
    /// Non-200 answers by Apple's reason string.
    public var rejected: [String: Int]
    public var rejectedTotal: Int
    public var connectionsOpen: Int
    public var connectionsTotal: Int
    /// Requests received (HTTP/2 streams delivered complete).
    public var streamsTotal: Int
    /// Requests received and not yet answered, reset or abandoned.
    public var streamsOpen: Int
    /// Requests answered with RST_STREAM (the `stream_reset_rate` fault).
    public var streamResets: Int
    /// Requests never answered: the client reset the stream or the connection closed first.
    public var unanswered: Int
    /// Connections reset on purpose (the `connection_reset` fault or a control).
    public var connectionResets: Int
    public var goAwaysSent: Int
    /// Times a connection's MAX_CONCURRENT_STREAMS was lowered to 1 after a rejection.
    public var streamLimitDrops: Int
    /// Broadcasts answered 200 (refused ones count in ``rejected``).
    public var broadcastsAccepted: Int
    /// Live Activity channels that exist now, over every app and environment.
    public var channels: Int
    /// Channels per `<environment>/<bundle id>`.
    public var channelsByApp: [String: Int]
    /// Answers of the channel-management listener.
    public var channelRequests: Int
    /// Its refusals by Apple's reason string.
    public var channelRequestsRejected: [String: Int]

    public init(
        scenario: String, accepted: Int, rejected: [String: Int], rejectedTotal: Int, connectionsOpen: Int,
        connectionsTotal: Int, streamsTotal: Int, streamsOpen: Int, streamResets: Int, unanswered: Int,
        connectionResets: Int, goAwaysSent: Int, streamLimitDrops: Int, broadcastsAccepted: Int = 0, channels: Int = 0,
        channelsByApp: [String: Int] = [:], channelRequests: Int = 0, channelRequestsRejected: [String: Int] = [:]
    ) {
        self.scenario = scenario
        self.accepted = accepted
        self.rejected = rejected
        self.rejectedTotal = rejectedTotal
        self.connectionsOpen = connectionsOpen
        self.connectionsTotal = connectionsTotal
        self.streamsTotal = streamsTotal
        self.streamsOpen = streamsOpen
        self.streamResets = streamResets
        self.unanswered = unanswered
        self.connectionResets = connectionResets
        self.goAwaysSent = goAwaysSent
        self.streamLimitDrops = streamLimitDrops
        self.broadcastsAccepted = broadcastsAccepted
        self.channels = channels
        self.channelsByApp = channelsByApp
        self.channelRequests = channelRequests
        self.channelRequestsRejected = channelRequestsRejected
    }

    enum CodingKeys: String, CodingKey {
        case scenario, accepted, rejected
        case rejectedTotal = "rejected_total"
        case connectionsOpen = "connections_open"
        case connectionsTotal = "connections_total"
        case streamsTotal = "streams_total"
        case streamsOpen = "streams_open"
        case streamResets = "stream_resets"
        case unanswered
        case connectionResets = "connection_resets"
        case goAwaysSent = "goaways_sent"
        case streamLimitDrops = "stream_limit_drops"
        case broadcastsAccepted = "broadcasts_accepted"
        case channels
        case channelsByApp = "channels_by_app"
        case channelRequests = "channel_requests"
        case channelRequestsRejected = "channel_requests_rejected"
    }

    /// Reads `/stats` of this version or of a mock from before the broadcast members (a staging
    /// mock may lag the load generator): those members then read as zero and empty.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            scenario: try container.decode(String.self, forKey: .scenario),
            accepted: try container.decode(Int.self, forKey: .accepted),
            rejected: try container.decode([String: Int].self, forKey: .rejected),
            rejectedTotal: try container.decode(Int.self, forKey: .rejectedTotal),
            connectionsOpen: try container.decode(Int.self, forKey: .connectionsOpen),
            connectionsTotal: try container.decode(Int.self, forKey: .connectionsTotal),
            streamsTotal: try container.decode(Int.self, forKey: .streamsTotal),
            streamsOpen: try container.decode(Int.self, forKey: .streamsOpen),
            streamResets: try container.decode(Int.self, forKey: .streamResets),
            unanswered: try container.decode(Int.self, forKey: .unanswered),
            connectionResets: try container.decode(Int.self, forKey: .connectionResets),
            goAwaysSent: try container.decode(Int.self, forKey: .goAwaysSent),
            streamLimitDrops: try container.decode(Int.self, forKey: .streamLimitDrops),
            broadcastsAccepted: try container.decodeIfPresent(Int.self, forKey: .broadcastsAccepted) ?? 0,
            channels: try container.decodeIfPresent(Int.self, forKey: .channels) ?? 0,
            channelsByApp: try container.decodeIfPresent([String: Int].self, forKey: .channelsByApp) ?? [:],
            channelRequests: try container.decodeIfPresent(Int.self, forKey: .channelRequests) ?? 0,
            channelRequestsRejected: try container.decodeIfPresent([String: Int].self, forKey: .channelRequestsRejected)
                ?? [:])
    }

    /// The count for one reason (0 when none).
    public func rejected(_ reason: String) -> Int { self.rejected[reason] ?? 0 }
}
