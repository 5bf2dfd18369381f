/// The one error type test helpers and test bodies throw when a precondition of the test itself
/// fails (a child that never printed its line, a port nobody opened): the description is the
/// whole message, so a failing test shows what it waited for and what it saw instead.
public struct TestFailure: Error, CustomStringConvertible, Sendable {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
