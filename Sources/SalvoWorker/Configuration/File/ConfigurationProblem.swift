/// One mistake in a configuration file: the key path (`apps.main.pool.connections`, or the
/// environment variable that set it) and the rule it breaks. ``WorkerConfigurationLoader`` adds
/// the file name and turns it into a ``SalvoWorkerError``. The path is empty when the rule names
/// its keys itself (a part's `validate()` message, or a whole-file problem).
struct ConfigurationProblem: Error, Sendable {
    var path: String
    var rule: String

    init(_ path: String, _ rule: String) {
        self.path = path
        self.rule = rule
    }

    /// The problem a decoding failure describes, with its coding path as the key path.
    init(_ error: DecodingError) {
        switch error {
        case .keyNotFound(let key, let context):
            self.init(Self.path(context.codingPath + [key]), "required key is missing")
        case .valueNotFound(let type, let context):
            self.init(Self.path(context.codingPath), "a value of type \(Self.name(of: type)) is required, found null")
        case .typeMismatch(let type, let context):
            self.init(Self.path(context.codingPath), "expected \(Self.name(of: type))")
        case .dataCorrupted(let context):
            if let underlying = context.underlyingError {
                self.init(syntaxError: underlying, path: context.codingPath)
            } else {
                self.init(Self.path(context.codingPath), context.debugDescription)
            }
        @unknown default:
            self.init("", "\(error)")
        }
    }

    /// A YAML syntax error (Yams' `YamlError`): its first line carries the line, column and
    /// problem; the rest quotes the offending line, which is left out to keep messages one line.
    init(syntaxError: any Error, path: [any CodingKey]) {
        let text = String(describing: syntaxError).split(separator: "\n").first.map(String.init) ?? ""
        self.init(Self.path(path), "not valid YAML: \(text)")
    }

    /// `a.b[2].c`.
    static func path(_ keys: [any CodingKey]) -> String {
        var text = ""
        for key in keys {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return text
    }

    private static func name(of type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Int.Type: return "an integer"
        case is Double.Type: return "a number"
        case is Bool.Type: return "true or false"
        case is [String].Type: return "a list of strings"
        default:
            let name = String(describing: type)
            return name.hasPrefix("Array") ? "a list" : "a mapping"
        }
    }
}
