#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads key and certificate files at start-up, turning file-system failures into
/// ``APNsError/Code/credentialUnreadable`` that name the file but never echo its content.
enum CredentialFile {
    static func readBytes(_ path: String) throws(APNsError) -> [UInt8] {
        do {
            return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw APNsError(
                code: .credentialUnreadable,
                message: "cannot read credential file \(path)",
                underlying: String(describing: error)
            )
        }
    }

    static func readText(_ path: String) throws(APNsError) -> String {
        let bytes = try readBytes(path)
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw APNsError(code: .invalidCredential, message: "credential file \(path) is not UTF-8 text")
        }
        return text
    }
}
