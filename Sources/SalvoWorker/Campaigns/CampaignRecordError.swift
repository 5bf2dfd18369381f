/// Why a record of `salvo.control` or `salvo.campaigns` could not be read. Such a record is
/// skipped (and logged) by its readers: a bad record must never stop control of the others.
public struct CampaignRecordError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
