import Foundation

/// A JSON value as the Live Activity checks read it. JSONDecoder keeps numbers and booleans
/// apart (JSONSerialization bridges both to NSNumber), which `timestamp: true` needs.
indirect enum LiveActivityJSON: Decodable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([LiveActivityJSON])
    case object([String: LiveActivityJSON])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([LiveActivityJSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: LiveActivityJSON].self))
        }
    }

    var number: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    var isObject: Bool {
        if case .object = self { return true }
        return false
    }
}
