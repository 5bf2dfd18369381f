/// Waits (bounded: at most `seconds`, polling every 10 ms) until `condition` holds; returns
/// whether it did. For effects that arrive asynchronously, such as a GOAWAY after a timer.
func eventually(seconds: Double = 5, _ condition: () -> Bool) async -> Bool {
    let attempts = Int(seconds * 100)
    for _ in 0..<attempts {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}
