extension Duration {
    /// Seconds as a floating-point number, for human-readable summaries.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
