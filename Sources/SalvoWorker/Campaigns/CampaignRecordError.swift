/// Why a record of `salvo.control` or `salvo.campaigns` could not be read. Such a record is
/// skipped (and logged) by its readers: a bad record must never stop control of the others.
package struct CampaignRecordError: Error, Sendable, Hashable, CustomStringConvertible {
    package var message: String

    package init(_ message: String) {
        self.message = message
    }

    package var description: String { message }
}
