import SalvoAPNs
import SalvoHTTP2

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads what the validator needs from a request's header block: `:method`, `:path` and the APNs
/// fields, as the `APNsHeaderField`s `APNsRequestValidator` takes.
///
/// Why it remembers the previous request: on one connection, requests of a campaign repeat the
/// same topic, push type, priority and provider token byte for byte. When they do, the previous
/// request's field values are reused (a comparison instead of an allocation per field), which
/// is most of what reading headers costs. Other headers (user-agent, content-length, …) are not
/// APNs's business and take no part in the checks.
struct MockRequestFieldReader {
    struct Fields {
        var method: [UInt8]
        var path: [UInt8]
        /// The APNs fields other than `apns-id`, in the order received.
        var fields: [APNsHeaderField]
        /// The first `apns-id` value, and whether another followed it.
        var apnsID: [UInt8]?
        var apnsIDRepeated = false
        /// Whether ``fields`` are byte for byte the previous request's on this reader.
        var repeatsPrevious: Bool

        /// Every APNs field, `apns-id` included (twice when repeated), for the validator.
        var allFields: [APNsHeaderField] {
            guard let apnsID else { return self.fields }
            var all = self.fields
            all.append(APNsHeaderField(name: APNsHeaderField.Name.apnsID, value: apnsID))
            // Two are enough for the validator to see the duplicate.
            if self.apnsIDRepeated { all.append(APNsHeaderField(name: APNsHeaderField.Name.apnsID, value: apnsID)) }
            return all
        }
    }

    /// The header names the validator reads. Matched against request bytes as static strings:
    /// constant memory, so recognising a name costs a length switch and a `memcmp`, with no
    /// reference counting (array constants cost a retain and release per field, ~3 % of a request).
    private enum Kind: UInt8 {
        case apnsID, topic, priority, authorization, pushType, expiration, collapseID

        var name: StaticString {
            switch self {
            case .apnsID: "apns-id"
            case .topic: "apns-topic"
            case .priority: "apns-priority"
            case .authorization: "authorization"
            case .pushType: "apns-push-type"
            case .expiration: "apns-expiration"
            case .collapseID: "apns-collapse-id"
            }
        }

        /// The shared constant the validator compares names with.
        var bytes: [UInt8] {
            switch self {
            case .apnsID: APNsHeaderField.Name.apnsID
            case .topic: APNsHeaderField.Name.topic
            case .priority: APNsHeaderField.Name.priority
            case .authorization: APNsHeaderField.Name.authorization
            case .pushType: APNsHeaderField.Name.pushType
            case .expiration: APNsHeaderField.Name.expiration
            case .collapseID: APNsHeaderField.Name.collapseID
            }
        }
    }

    private let post = APNsRequest.method

    /// The previous request's APNs fields other than `apns-id` (which differs per request), and
    /// the same as plain data: their kinds, and their values end to end with each one's end
    /// offset. Comparing against the plain copy takes no reference counting.
    private var previous: [APNsHeaderField] = []
    private var previousKinds: [Kind] = []
    private var previousValues: [UInt8] = []
    private var previousEnds: [Int] = []

    mutating func read(_ headers: HTTP2Headers) -> Fields {
        var method: [UInt8] = []
        var path: [UInt8] = []
        var changed: [APNsHeaderField]?
        var changedKinds: [Kind] = []
        var matched = 0
        var apnsID: [UInt8]?
        var apnsIDRepeated = false
        let post = self.post
        let previous = self.previous
        let previousKinds = self.previousKinds
        let previousEnds = self.previousEnds
        self.previousValues.withUnsafeBytes { previousValues in
            headers.forEachField { name, value in
                guard let kind = Self.kind(of: name) else {
                    if Self.equal(name, ":path") {
                        path = Array(value)
                    } else if Self.equal(name, ":method") {
                        method = Self.equal(value, "POST") ? post : Array(value)
                    }
                    return
                }
                if kind == .apnsID {
                    if apnsID == nil { apnsID = Array(value) } else { apnsIDRepeated = true }
                    return
                }
                if changed == nil {
                    if matched < previousKinds.count, previousKinds[matched] == kind {
                        let start = matched == 0 ? 0 : previousEnds[matched - 1]
                        let stored = UnsafeRawBufferPointer(rebasing: previousValues[start..<previousEnds[matched]])
                        if Self.equal(value, stored) {
                            matched += 1
                            return
                        }
                    }
                    changed = Array(previous[0..<matched])
                    changedKinds = Array(previousKinds[0..<matched])
                }
                changed!.append(APNsHeaderField(name: kind.bytes, value: Array(value)))
                changedKinds.append(kind)
            }
        }
        let repeats = changed == nil && matched == previous.count
        if let changed {
            self.remember(changed, kinds: changedKinds)
        } else if !repeats {
            self.remember(Array(previous[0..<matched]), kinds: Array(previousKinds[0..<matched]))
        }
        return Fields(
            method: method, path: path, fields: self.previous, apnsID: apnsID, apnsIDRepeated: apnsIDRepeated,
            repeatsPrevious: repeats)
    }

    /// Makes `fields` the previous request's, in both forms.
    private mutating func remember(_ fields: [APNsHeaderField], kinds: [Kind]) {
        self.previous = fields
        self.previousKinds = kinds
        self.previousValues = fields.flatMap(\.value)
        var end = 0
        self.previousEnds = fields.map { field in
            end += field.value.count
            return end
        }
    }

    /// The kind when `name` is one of the headers the validator reads; nil otherwise.
    /// Dispatches on the length first: most fields are rejected without comparing.
    private static func kind(of name: UnsafeRawBufferPointer) -> Kind? {
        let kind: Kind
        switch name.count {
        case 7: kind = .apnsID
        case 10: kind = .topic
        case 13: kind = name[1] == UInt8(ascii: "p") ? .priority : .authorization
        case 14: kind = .pushType
        case 15: kind = .expiration
        case 16: kind = .collapseID
        default: return nil
        }
        return Self.equal(name, kind.name) ? kind : nil
    }

    private static func equal(_ bytes: UnsafeRawBufferPointer, _ other: StaticString) -> Bool {
        Self.equal(bytes, UnsafeRawBufferPointer(start: other.utf8Start, count: other.utf8CodeUnitCount))
    }

    /// Byte equality with one `memcmp`.
    private static func equal(_ bytes: UnsafeRawBufferPointer, _ other: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count == other.count else { return false }
        guard bytes.count > 0 else { return true }
        return memcmp(bytes.baseAddress!, other.baseAddress!, bytes.count) == 0
    }
}
