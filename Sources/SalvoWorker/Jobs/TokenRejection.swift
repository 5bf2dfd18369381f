/// One token of a campaign that cannot be sent, while the rest of the job proceeds. Each becomes
/// a dead letter of its own (reason `invalid_token`), so the job's offset still commits.
package struct TokenRejection: Sendable, Hashable {
    /// Longest token text kept, in bytes; a longer string is cut (it is garbage anyway).
    package static let maximumTextLength = 256

    /// Position in the job's `tokens` array.
    package var index: Int
    /// The string as sent, decoded and cut to ``maximumTextLength`` bytes.
    package var text: String
    package var reason: JobRejection.Reason
    package var message: String

    package init(index: Int, text: String, reason: JobRejection.Reason = .invalidToken, message: String) {
        self.index = index
        self.text = text
        self.reason = reason
        self.message = message
    }
}
