#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import SalvoAPNs
import SalvoHTTP2

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

    /// Names held per reader: a global of another module costs a `swift_once` check per access.
    /// A class, so taking it into the per-field closure is one retain rather than one per name.
    private let names = Names()

    private final class Names {
        let method = Array(":method".utf8)
        let path = Array(":path".utf8)
        let post = APNsRequest.method
        let apnsID = APNsHeaderField.Name.apnsID
        let topic = APNsHeaderField.Name.topic
        let priority = APNsHeaderField.Name.priority
        let authorization = APNsHeaderField.Name.authorization
        let pushType = APNsHeaderField.Name.pushType
        let expiration = APNsHeaderField.Name.expiration
        let collapseID = APNsHeaderField.Name.collapseID
    }

    /// The previous request's APNs fields other than `apns-id` (which differs per request).
    private var previous: [APNsHeaderField] = []

    mutating func read(_ headers: HTTP2Headers) -> Fields {
        var method: [UInt8] = []
        var path: [UInt8] = []
        var changed: [APNsHeaderField]?
        var matched = 0
        var apnsID: [UInt8]?
        var apnsIDRepeated = false
        let previous = self.previous
        let names = self.names
        headers.forEachField { name, value in
            guard let known = Self.apnsHeaderName(name, names) else {
                if Self.equal(name, names.path) {
                    path = Array(value)
                } else if Self.equal(name, names.method) {
                    method = Self.equal(value, names.post) ? names.post : Array(value)
                }
                return
            }
            if known.count == names.apnsID.count {
                if apnsID == nil { apnsID = Array(value) } else { apnsIDRepeated = true }
                return
            }
            if changed == nil {
                if matched < previous.count, previous[matched].name == known, Self.equal(value, previous[matched].value) {
                    matched += 1
                    return
                }
                changed = Array(previous[0..<matched])
            }
            changed!.append(APNsHeaderField(name: known, value: Array(value)))
        }
        let fields: [APNsHeaderField]
        let repeats = changed == nil && matched == previous.count
        if let changed {
            fields = changed
        } else if repeats {
            fields = previous
        } else {
            fields = Array(previous[0..<matched])
        }
        self.previous = fields
        return Fields(
            method: method, path: path, fields: fields, apnsID: apnsID, apnsIDRepeated: apnsIDRepeated,
            repeatsPrevious: repeats)
    }

    /// The shared name constant when `name` is one of the headers the validator reads; nil
    /// otherwise. Dispatches on the length first: most fields are rejected without comparing.
    private static func apnsHeaderName(_ name: UnsafeRawBufferPointer, _ names: Names) -> [UInt8]? {
        let candidate: [UInt8]
        switch name.count {
        case 7: candidate = names.apnsID
        case 10: candidate = names.topic
        case 13: candidate = name[1] == UInt8(ascii: "p") ? names.priority : names.authorization
        case 14: candidate = names.pushType
        case 15: candidate = names.expiration
        case 16: candidate = names.collapseID
        default: return nil
        }
        return Self.equal(name, candidate) ? candidate : nil
    }

    /// Byte equality with one `memcmp`.
    private static func equal(_ bytes: UnsafeRawBufferPointer, _ other: [UInt8]) -> Bool {
        guard bytes.count == other.count else { return false }
        guard let base = bytes.baseAddress else { return true }
        return other.withUnsafeBytes { memcmp(base, $0.baseAddress!, bytes.count) == 0 }
    }
}
