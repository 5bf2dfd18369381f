/// Values keyed by app name, found without hashing the name while the apps are few.
///
/// Every job looks its app up twice (the decoder's profile, the intake's environments), and a
/// dictionary hashed the name's text with SipHash each time: ~700 instructions of a per-user push
/// (`make bench-instructions`, docs/benchmarks.md). A worker serves a handful of apps, and
/// comparing a short name with each (a small string compares as two words) costs a few
/// instructions; past ``linearLimit`` apps the table hashes again.
struct AppTable<Value: Sendable>: Sendable {
    private let names: [String]
    private let values: [Value]
    private let dictionary: [String: Value]?

    static var linearLimit: Int { 8 }

    init(_ table: [String: Value]) {
        let sorted = table.sorted { $0.key < $1.key }
        names = sorted.map(\.key)
        values = sorted.map(\.value)
        dictionary = table.count > Self.linearLimit ? table : nil
    }

    subscript(_ name: String) -> Value? {
        if let dictionary { return dictionary[name] }
        guard let index = names.firstIndex(of: name) else { return nil }
        return values[index]
    }
}
