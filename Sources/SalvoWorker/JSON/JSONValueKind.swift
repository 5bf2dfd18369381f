/// The kind of a JSON value, known from its first byte.
enum JSONValueKind: Sendable, Hashable {
    case object
    case array
    case string
    case number
    case `true`
    case `false`
    case null

    init?(firstByte: UInt8) {
        switch firstByte {
        case UInt8(ascii: "{"): self = .object
        case UInt8(ascii: "["): self = .array
        case UInt8(ascii: "\""): self = .string
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): self = .number
        case UInt8(ascii: "t"): self = .true
        case UInt8(ascii: "f"): self = .false
        case UInt8(ascii: "n"): self = .null
        default: return nil
        }
    }

    /// How the schema names it in messages ("expected a string, found a number").
    var name: String {
        switch self {
        case .object: return "an object"
        case .array: return "an array"
        case .string: return "a string"
        case .number: return "a number"
        case .true, .false: return "a boolean"
        case .null: return "null"
        }
    }
}
