import Yams

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reading a YAML configuration file, shared by the worker's loader and the commands'
/// `--kafka-config`: the same words for an unreadable file, a syntax error or a wrong key.
enum ConfigurationYAML {
    /// The text of `path` and the directory relative paths in it are taken from.
    static func read(_ path: String) throws(ConfigurationProblem) -> (yaml: String, directory: String) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationProblem("", "cannot read the configuration file")
        }
        guard let yaml = String(data: data, encoding: .utf8) else {
            throw ConfigurationProblem("", "the configuration file is not UTF-8 text")
        }
        guard let slash = path.lastIndex(of: "/") else { return (yaml, ".") }
        let directory = String(path[..<slash])
        return (yaml, directory.isEmpty ? "/" : directory)
    }

    /// `yaml` decoded as `T`; a decoding error names the key path, a syntax error its line.
    static func decode<T: Decodable>(_ type: T.Type, from yaml: String) throws(ConfigurationProblem) -> T {
        do {
            return try YAMLDecoder().decode(T.self, from: yaml)
        } catch let error as DecodingError {
            throw ConfigurationProblem(error)
        } catch {
            throw ConfigurationProblem(syntaxError: error, path: [])
        }
    }
}

extension ConfigurationProblem {
    /// The one-line error for a problem in `source`: `source: key: rule`, or `source: rule`.
    func failure(in source: String) -> SalvoWorkerError {
        .invalidConfiguration(path.isEmpty ? "\(source): \(rule)" : "\(source): \(path): \(rule)")
    }
}
