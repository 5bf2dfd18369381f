/// Runs `body` with `resource`, then `cleanUp`, also when `body` throws — what `defer` would do
/// if it could await. For the tests' brokers and topics: a failing test must not leave its topics
/// and clients behind for the next one.
public func withCleanUp<Resource, Result>(
    _ resource: Resource, cleanUp: (Resource) async -> Void, _ body: (Resource) async throws -> Result
) async throws -> Result {
    let result: Result
    do {
        result = try await body(resource)
    } catch {
        await cleanUp(resource)
        throw error
    }
    await cleanUp(resource)
    return result
}
