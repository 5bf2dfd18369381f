/// A setting that can be left out (use the default), set to `null` (turn the feature off), or set.
enum ConfigurationSetting<Value> {
    case absent
    case disabled
    case value(Value)

    /// The resolved value: `defaultValue` when absent, nil when disabled.
    func resolved(default defaultValue: Value?) -> Value? {
        switch self {
        case .absent: return defaultValue
        case .disabled: return nil
        case .value(let value): return value
        }
    }

    func map<T>(_ transform: (Value) -> T) -> ConfigurationSetting<T> {
        switch self {
        case .absent: return .absent
        case .disabled: return .disabled
        case .value(let value): return .value(transform(value))
        }
    }
}

extension ConfigurationSetting: Sendable where Value: Sendable {}
