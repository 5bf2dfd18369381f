/// A command failed for a reason the user can act on. ArgumentParser prints it as
/// `Error: <message>` on stderr and exits with status 1, without the usage text that belongs to
/// argument mistakes.
struct CommandFailure: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
