import SalvoLoadTest

/// Hostile variants of valid jobs, reproducible from a seed: byte flips, truncations, random
/// insertions, deep nesting, huge numbers and duplicate members, in turn.
///
/// Every message carries tokens no other message has, so an acceptance the mock records names the
/// message it came from. No message is empty or contains a newline (kcat splits on a delimiter,
/// and the test reads messages back by line).
struct JobMutator {
    enum Mutation: CaseIterable {
        case byteFlip, truncation, insertion, deepNesting, hugeNumbers, duplicateMembers
    }

    struct Message {
        var bytes: [UInt8]
        /// The tokens of the valid job it came from, lowercase hex.
        var tokens: [String]
        var mutation: Mutation
    }

    private var random: LoadTestRandom

    init(seed: UInt64) {
        random = LoadTestRandom(seed: seed)
    }

    /// `count` messages, mutations in turn; `perUser` jobs carry one token, campaign jobs three.
    mutating func messages(count: Int, app: String, perUser: Bool, idPrefix: String) -> [Message] {
        (0..<count).map { index in
            let tokens = (0..<(perUser ? 1 : 3)).map { _ in token() }
            let job = Self.job(id: "\(idPrefix)-\(index)", app: app, tokens: tokens, variant: index, perUser: perUser)
            let mutation = Mutation.allCases[index % Mutation.allCases.count]
            var bytes = mutate(Array(job.utf8), mutation)
            bytes = bytes.map { $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") ? UInt8(ascii: " ") : $0 }
            if bytes.allSatisfy({ $0 == UInt8(ascii: " ") }) { bytes = [UInt8(ascii: "{")] }
            return Message(bytes: bytes, tokens: tokens, mutation: mutation)
        }
    }

    /// A valid job of one of a few shapes: collapse id, priority, expiration, badges, raw payload.
    static func job(id: String, app: String, tokens: [String], variant: Int, perUser: Bool) -> String {
        let list =
            perUser ? #""token":"\#(tokens[0])""# : #""tokens":[\#(tokens.map { "\"\($0)\"" }.joined(separator: ","))]"#
        switch variant % 4 {
        case 0:
            return
                #"{"id":"\#(id)","app":"\#(app)",\#(list),"payload":{"aps":{"alert":{"title":"Hi","body":"Lunch?"},"badge":3}}}"#
        case 1:
            return
                #"{"id":"\#(id)","app":"\#(app)",\#(list),"priority":5,"expiration":0,"collapse_id":"c-\#(variant)","payload":{"aps":{"alert":"x","sound":"default"},"n":[1,2.5,-3e2]}}"#
        case 2:
            return
                #"{"id":"\#(id)","app":"\#(app)",\#(list),"push_type":"background","payload_raw":"{\"aps\":{\"content-available\":1}}"}"#
        default:
            return
                #"{"id":"\#(id)","app":"\#(app)","campaign_id":"c",\#(list),"per_token":{"\#(tokens[0])":{"badge":7}},"payload":{"aps":{"alert":"Sale"}}}"#
        }
    }

    private mutating func mutate(_ job: [UInt8], _ mutation: Mutation) -> [UInt8] {
        var bytes = job
        switch mutation {
        case .byteFlip:
            for _ in 0..<between(1, 3) {
                bytes[between(0, bytes.count - 1)] ^= UInt8(1 << between(0, 7))
            }
        case .truncation:
            bytes = Array(bytes.prefix(between(1, bytes.count - 1)))
        case .insertion:
            let inserted = (0..<between(1, 8)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            bytes.insert(contentsOf: inserted, at: between(0, bytes.count))
        case .deepNesting:
            // Inside the payload (a JSON value the worker passes through) or as a top-level member.
            let depth = between(20, 300)
            let nested = Array((String(repeating: "[", count: depth) + "1" + String(repeating: "]", count: depth)).utf8)
            let member = Array(#""deep":"#.utf8) + nested + [UInt8(ascii: ",")]
            bytes.insert(contentsOf: member, at: between(0, 1) == 0 ? 1 : (Self.index(of: #""aps":"#, in: bytes) ?? 1))
        case .hugeNumbers:
            let huge = [
                "1e400", "18446744073709551616", "-9223372036854775809", "123456789012345678901234567890", "-0.0e-999",
                "2147483648",
            ]
            let field = [#""priority":"#, #""expiration":"#, #""badge":"#][between(0, 2)]
            let value = Array(huge[between(0, huge.count - 1)].utf8)
            bytes.insert(
                contentsOf: Array(field.utf8) + value + [UInt8(ascii: ",")],
                at: Self.index(of: #""app":"#, in: bytes) ?? 1)
        case .duplicateMembers:
            let member = [#""id":"again","#, #""app":"other","#, #""token":"00","#, #""payload":{},"#, #""aps":{},"#][
                between(0, 4)]
            let at = member.hasPrefix(#""aps""#) ? Self.index(of: #""aps":{"#, in: bytes).map { $0 + 7 } ?? 1 : 1
            bytes.insert(contentsOf: Array(member.utf8), at: min(at, bytes.count))
        }
        return bytes.isEmpty ? [UInt8(ascii: "[")] : bytes
    }

    /// 64 lowercase hex characters, unique to this run's seed and position.
    private mutating func token() -> String {
        (0..<4).map { _ in
            let hex = String(random.next(), radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }

    private mutating func between(_ low: Int, _ high: Int) -> Int {
        guard high > low else { return low }
        return low + Int(random.next() % UInt64(high - low + 1))
    }

    private static func index(of text: String, in bytes: [UInt8]) -> Int? {
        let needle = Array(text.utf8)
        guard bytes.count >= needle.count else { return nil }
        return (0...(bytes.count - needle.count)).first { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}
