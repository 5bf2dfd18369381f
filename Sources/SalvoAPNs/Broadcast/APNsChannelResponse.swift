import NIOCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// APNs's answer to a channel-management request or a broadcast: the status, the ids Apple puts
/// in headers, and for errors the `reason` from the JSON body.
public struct APNsChannelResponse: Sendable, Hashable {
    public var status: Int
    /// `apns-request-id`: the id sent, or the one APNs generated (every answer carries one).
    public var requestID: String?
    /// `apns-channel-id`, on a create's 201.
    public var channelID: APNsChannelID?
    /// `apns-unique-id`, on a broadcast's 200.
    public var uniqueID: String?
    /// Why APNs refused the request; nil on success or when the error body was unreadable.
    public var reason: APNsReason?
    /// The body of a 200 (read: the channel's settings; list: the channel ids).
    public var body: [UInt8]

    public init(
        status: Int, requestID: String? = nil, channelID: APNsChannelID? = nil, uniqueID: String? = nil,
        reason: APNsReason? = nil, body: [UInt8] = []
    ) {
        self.status = status
        self.requestID = requestID
        self.channelID = channelID
        self.uniqueID = uniqueID
        self.reason = reason
        self.body = body
    }

    /// Reads the headers Apple defines for these answers; the reason from the body of a non-2xx.
    init(status: Int, headers: [(name: String, value: String)], body: ByteBuffer?) {
        self.init(status: status, body: body.map { Array($0.readableBytesView) } ?? [])
        for (name, value) in headers {
            switch name {
            case "apns-request-id": self.requestID = value
            case "apns-channel-id": self.channelID = APNsChannelID(value)
            case "apns-unique-id": self.uniqueID = value
            default: break
            }
        }
        if !self.isSuccess, let parsed = APNsErrorBody(parsing: self.body) { self.reason = parsed.reason }
    }

    /// 200, 201 or 204.
    public var isSuccess: Bool { (200..<300).contains(self.status) }

    /// What to do next, by Apple's matrix (nil on success): `ChannelNotRegistered` and the other
    /// 4xx are permanent, 429 and 5xx back off, `ExpiredProviderToken` refreshes the token.
    public var retryPolicy: APNsRetryPolicy? {
        if self.isSuccess { return nil }
        if let reason, reason.status == self.status { return reason.retryPolicy }
        return APNsRetryPolicy(status: self.status)
    }

    /// The ids of a list answer (`{"channels": [...]}`); an empty body (Apple's page also calls
    /// the answer empty) lists none.
    public func listedChannelIDs() throws(APNsError) -> [APNsChannelID] {
        if self.body.isEmpty { return [] }
        struct Listing: Decodable { var channels: [String]? }
        guard let listing = try? JSONDecoder().decode(Listing.self, from: Data(self.body)) else {
            throw APNsError(code: .rejected, message: "the channel list answer is not {\"channels\": [...]}")
        }
        return (listing.channels ?? []).compactMap(APNsChannelID.init)
    }

    /// The settings of a read answer.
    public func channelConfiguration() throws(APNsError) -> APNsChannelConfiguration {
        do throws(APNsReason) {
            return try APNsChannelConfiguration(parsing: self.body)
        } catch {
            throw APNsError(
                code: .rejected, message: "the channel read answer is not a channel configuration (\(error))")
        }
    }
}
