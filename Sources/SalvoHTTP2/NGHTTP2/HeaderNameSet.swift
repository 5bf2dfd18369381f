#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A few header names, asked about every field sent or received: whether `apns-id` is one to
/// keep out of the HPACK table, whether a response field is one the caller keeps.
///
/// The names' lengths are a bit mask, so most fields are answered by one shift: fields are
/// asked about eight times per request, and walking an array of `[UInt8]` names for each (a
/// retain, a release and a generic comparison per name) cost ~80 instructions a field. Names are
/// compared byte for byte, case-sensitively: HTTP/2 names are lower case.
struct HeaderNameSet: Sendable {
    private let names: [[UInt8]]
    /// Bit n set: a name of n bytes is in the set (bit 63: one of 63 bytes or more).
    private let lengths: UInt64

    init(_ names: [String]) {
        self.names = names.map { Array($0.utf8) }
        self.lengths = self.names.reduce(0) { $0 | 1 << UInt64(Swift.min($1.count, 63)) }
    }

    func contains(_ name: UnsafeRawBufferPointer) -> Bool {
        guard self.lengths >> UInt64(Swift.min(name.count, 63)) & 1 != 0, let bytes = name.baseAddress else {
            return false
        }
        return self.names.withUnsafeBufferPointer { names in
            for index in names.indices where names[index].count == name.count {
                if names[index].withUnsafeBytes({ memcmp($0.baseAddress!, bytes, name.count) == 0 }) { return true }
            }
            return false
        }
    }
}
