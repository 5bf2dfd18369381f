/// The job the benchmarks use: an alert of a typical campaign size, as `salvo bench worker`
/// produces it and `salvo bench jobs` decodes it.
enum BenchJob {
    /// One token becomes a per-user job (`token`), more a campaign job (`tokens`).
    static func text(id: String, app: String, tokens: some Collection<UInt64>) -> String {
        var text = #"{"id":"\#(id)","app":"\#(app)","#
        if tokens.count == 1, let only = tokens.first {
            text += #""token":"\#(token(only))","#
        } else {
            text += #""tokens":["# + tokens.map { "\"\(token($0))\"" }.joined(separator: ",") + "],"
        }
        return text
            + #""payload":{"aps":{"alert":{"title":"Benchmark","body":"A notification of a typical size for a campaign"},"sound":"default"}}}"#
    }

    /// A 64-hex-character device token (the value, zero-padded).
    static func token(_ value: UInt64) -> String {
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 64 - hex.count) + hex
    }
}
