import ArgumentParser
import Foundation
import SalvoAPNs

/// The credential settings `salvo send` and `salvo channels` take as flags (or `send --config`
/// takes from JSON), resolved to one credential the same way for both commands.
struct ChannelsCredentialFlags {
    var keyFile, keyID, teamID, certFile, certKeyFile, p12File, password: String?

    init(
        keyFile: String? = nil, keyID: String? = nil, teamID: String? = nil, certFile: String? = nil,
        certKeyFile: String? = nil,
        p12File: String? = nil, password: String? = nil
    ) {
        (self.keyFile, self.keyID, self.teamID) = (keyFile, keyID, teamID)
        (self.certFile, self.certKeyFile, self.p12File, self.password) = (certFile, certKeyFile, p12File, password)
    }

    init(_ flags: SendCommand.Credentials) throws {
        self.init(
            keyFile: flags.keyFile, keyID: flags.keyID, teamID: flags.teamID, certFile: flags.certFile,
            certKeyFile: flags.certKeyFile, p12File: flags.p12File,
            password: try Self.password(file: flags.passwordFile, variable: flags.passwordEnv))
    }

    /// A password from a file (its final line break not part of it) or an environment variable,
    /// never from the command line; nil when neither is named. A file that cannot be read or a
    /// variable that is not set is a configuration error naming it (exit 78).
    static func password(
        file: String?, variable: String?, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> String? {
        switch (file, variable) {
        case (nil, nil):
            return nil
        case (let path?, nil):
            guard let data = FileManager.default.contents(atPath: path), var text = String(data: data, encoding: .utf8)
            else {
                throw CommandFailure("--password-file: cannot read \(path)", exit: .configuration)
            }
            while text.last?.isNewline == true { text.removeLast() }
            return text
        case (nil, let name?):
            guard let value = environment[name] else {
                throw CommandFailure("--password-env: environment variable \(name) is not set", exit: .configuration)
            }
            return value
        case (.some, .some):
            throw ValidationError("give --password-file or --password-env, not both")
        }
    }

    /// Each setting from `self`, else from `fallback`.
    func over(_ fallback: ChannelsCredentialFlags?) -> ChannelsCredentialFlags {
        guard let fallback else { return self }
        return ChannelsCredentialFlags(
            keyFile: self.keyFile ?? fallback.keyFile, keyID: self.keyID ?? fallback.keyID,
            teamID: self.teamID ?? fallback.teamID,
            certFile: self.certFile ?? fallback.certFile, certKeyFile: self.certKeyFile ?? fallback.certKeyFile,
            p12File: self.p12File ?? fallback.p12File, password: self.password ?? fallback.password)
    }

    /// Whether any credential setting was given.
    var isEmpty: Bool { self.keyFile == nil && self.certFile == nil && self.p12File == nil }

    /// Exactly one of: a `.p8` key (with a team id), a PEM certificate and key, a PKCS#12 bundle.
    func credential() throws -> APNsCredential {
        switch (self.keyFile, self.certFile, self.p12File) {
        case (let keyFile?, nil, nil):
            guard let teamID = self.teamID else { throw ValidationError("token authentication needs --team-id") }
            return .token(try APNsTokenCredential.load(p8Path: keyFile, keyID: self.keyID, teamID: teamID))
        case (nil, let certFile?, nil):
            guard let keyPath = self.certKeyFile else {
                throw ValidationError("certificate authentication with --cert-file needs --cert-key-file")
            }
            return .certificate(
                try .pem(certificatePath: certFile, privateKeyPath: keyPath, keyPassword: self.password))
        case (nil, nil, let p12File?):
            return .certificate(try .pkcs12(path: p12File, password: self.password))
        default:
            throw ValidationError("give exactly one credential: --key-file, --cert-file or --p12-file")
        }
    }
}
