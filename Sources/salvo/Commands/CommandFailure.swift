/// A command failed for a reason the user can act on. It is printed as `Error: <message>` on
/// stderr, without the usage text that belongs to argument mistakes, and the process exits with
/// `exit` (``CommandExit``, the table in docs/cli.md).
struct CommandFailure: Error, CustomStringConvertible {
    var description: String
    var exit: CommandExit

    init(_ description: String, exit: CommandExit = .software) {
        self.description = description
        self.exit = exit
    }
}
