import NIOSSL
import SalvoAPNs

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Turns one `apps:` entry into a ``WorkerApp``: reads its credential and CA files (once, here),
/// resolves its environments and pool transport. Errors name the key path; none carries the
/// content of a key, a certificate or a password.
struct WorkerAppBuilder {
    /// Where relative file paths start: the configuration file's directory.
    var baseDirectory: String
    /// For `password_env`.
    var environment: [String: String]

    func build(name: String, _ section: WorkerConfigurationFile.App) throws(ConfigurationProblem) -> WorkerApp {
        let path = "apps.\(name)"
        let (credential, certificateBundleID) = try loadCredential(section.credential, path: "\(path).credential")
        guard let bundleID = section.bundleID ?? certificateBundleID else {
            let rule =
                certificateBundleID == nil && !section.credential.isToken
                ? "required: the certificate has no UID attribute to take the bundle id from"
                : "required for a token credential"
            throw ConfigurationProblem("\(path).bundle_id", rule)
        }
        if let certificateBundleID, certificateBundleID != bundleID {
            throw ConfigurationProblem(
                "\(path).bundle_id",
                "\"\(bundleID)\" differs from the certificate's bundle id \"\(certificateBundleID)\"; APNs would refuse every topic"
            )
        }

        let entries = section.environments ?? [.apple(.production)]
        guard !entries.isEmpty else {
            throw ConfigurationProblem("\(path).environments", "list at least one environment")
        }
        var endpoints: [APNsEnvironment.Kind: APNsEnvironment] = [:]
        for (index, entry) in entries.enumerated() {
            guard endpoints[entry.kind] == nil else {
                throw ConfigurationProblem(
                    "\(path).environments[\(index)]",
                    "a second endpoint for \(entry.kind.rawValue); each kind appears once")
            }
            switch entry {
            case .apple(let kind): endpoints[kind] = kind == .production ? .production : .sandbox
            case .custom(let endpoint):
                endpoints[endpoint.behavesAs] = .custom(
                    host: endpoint.host, port: endpoint.port, behavesAs: endpoint.behavesAs)
            }
        }
        let defaultEnvironment: APNsEnvironment.Kind
        if let text = section.defaultEnvironment {
            guard let kind = APNsEnvironment.Kind(rawValue: text) else {
                throw ConfigurationProblem("\(path).default_environment", "\"\(text)\" must be production or sandbox")
            }
            guard endpoints[kind] != nil else {
                throw ConfigurationProblem(
                    "\(path).default_environment", "\(text) is not one of the app's environments")
            }
            defaultEnvironment = kind
        } else {
            defaultEnvironment = entries[0].kind
        }

        var pool = APNsConnectionPool.Configuration()
        try applyTransport(entries, credential: credential, to: &pool.connection, path: "\(path).environments")
        if let settings = section.pool {
            if let value = settings.connections { pool.connectionCount = value }
            if let value = settings.maximumStreams { pool.maximumStreamsPerConnection = value }
            if let value = settings.connectTimeout { pool.connection.connectTimeout = value.value }
            if let value = settings.requestTimeout { pool.connection.requestTimeout = value.value }
            if let value = settings.keepaliveInterval { pool.connection.keepaliveInterval = value.value }
            if let value = settings.keepaliveTimeout { pool.connection.keepaliveTimeout = value.value }
        }
        let app = WorkerApp(
            bundleID: bundleID, credential: credential, endpoints: endpoints, defaultEnvironment: defaultEnvironment,
            pool: pool, rateLimit: section.rateLimit?.rateLimit)
        do throws(SalvoWorkerError) {
            try app.validate(name: name)
        } catch {
            // The message starts with the key path (`apps.<name>.…`).
            throw ConfigurationProblem("", error.message)
        }
        return app
    }

    /// Every environment of an app shares its pool settings, so they must agree on the transport:
    /// Apple's gateways need the system's roots, a mock its own CA or h2c. h2c goes only to
    /// loopback addresses unless the environment says `allow_plaintext: true`.
    private func applyTransport(
        _ entries: [WorkerConfigurationFile.Environment], credential: APNsCredential,
        to connection: inout APNsConnection.Configuration, path: String
    ) throws(ConfigurationProblem) {
        struct Choice: Equatable {
            var caFile: String?
            var h2c = false
            var allowPlaintext = false
            var serverName: String?
        }
        let choices = entries.map { entry -> Choice in
            guard case .custom(let endpoint) = entry else { return Choice() }
            return Choice(
                caFile: endpoint.caFile.map(resolve), h2c: endpoint.h2c, allowPlaintext: endpoint.allowPlaintext,
                serverName: endpoint.tlsServerName)
        }
        guard let choice = choices.first, choices.allSatisfy({ $0 == choice }) else {
            throw ConfigurationProblem(
                path,
                "every environment of one app shares its pool's transport: ca_file, h2c, allow_plaintext and tls_server_name "
                    + "must agree (use a second app entry for a mock beside Apple)")
        }
        connection.tlsServerName = choice.serverName
        if choice.h2c {
            if case .certificate = credential {
                throw ConfigurationProblem(
                    "\(path)[0].h2c", "a certificate credential needs TLS; h2c cannot present a client certificate")
            }
            for (index, entry) in entries.enumerated() {
                guard case .custom(let endpoint) = entry, !endpoint.allowPlaintext,
                    !APNsPlaintextPolicy.isLoopback(host: endpoint.host)
                else { continue }
                throw ConfigurationProblem(
                    "\(path)[\(index)].h2c",
                    "cleartext HTTP/2 to \(endpoint.host), which is not a loopback address, would send the provider token, payloads "
                        + "and device tokens unencrypted: use TLS (ca_file), or set allow_plaintext: true on this environment"
                )
            }
            connection.transport = .plaintext
            connection.allowsRemotePlaintext = choice.allowPlaintext
        } else if let caFile = choice.caFile {
            let certificates: [NIOSSLCertificate]
            do {
                certificates = try NIOSSLCertificate.fromPEMFile(caFile)
            } catch {
                throw ConfigurationProblem("\(path)[0].ca_file", "cannot read PEM CA certificates from \(caFile)")
            }
            guard !certificates.isEmpty else {
                throw ConfigurationProblem("\(path)[0].ca_file", "\(caFile) holds no PEM certificate")
            }
            connection.transport = .tls(trustRoots: .certificates(certificates))
        }
    }

    /// The credential, and the bundle id a certificate states (nil for tokens).
    private func loadCredential(
        _ section: WorkerConfigurationFile.Credential, path: String
    ) throws(ConfigurationProblem) -> (APNsCredential, String?) {
        switch section {
        case .token(let token):
            do throws(APNsError) {
                let credential = try APNsTokenCredential.load(
                    p8Path: resolve(token.keyFile), keyID: token.keyID, teamID: token.teamID)
                return (.token(credential), nil)
            } catch {
                // The message names the file or the id; `underlying` (the parser's own text) is
                // left out so that nothing read from a key file can reach a log.
                throw ConfigurationProblem("\(path).token", error.message)
            }
        case .certificate(let certificate):
            let password = try loadPassword(certificate, path: "\(path).certificate")
            do throws(APNsError) {
                let credential: APNsCertificateCredential
                if let bundle = certificate.pkcs12File {
                    credential = try .pkcs12(path: resolve(bundle), password: password)
                } else {
                    credential = try .pem(
                        certificatePath: resolve(certificate.certificateFile ?? ""),
                        privateKeyPath: resolve(certificate.keyFile ?? ""), keyPassword: password)
                }
                return (.certificate(credential), credential.certificateBundleID)
            } catch {
                throw ConfigurationProblem("\(path).certificate", error.message)
            }
        }
    }

    private func loadPassword(
        _ section: WorkerConfigurationFile.Certificate, path: String
    ) throws(ConfigurationProblem) -> String? {
        if let variable = section.passwordEnvironmentVariable {
            guard let password = environment[variable] else {
                throw ConfigurationProblem("\(path).password_env", "environment variable \(variable) is not set")
            }
            return password
        }
        guard let file = section.passwordFile.map(resolve) else { return nil }
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: file)) else {
            throw ConfigurationProblem("\(path).password_file", "cannot read \(file)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ConfigurationProblem("\(path).password_file", "\(file) is not UTF-8 text")
        }
        // Editors and `echo` add a final newline that is not part of the password.
        var password = Substring(text)
        while password.last == "\n" || password.last == "\r" { password = password.dropLast() }
        return String(password)
    }

    /// Relative paths are taken from the configuration file's directory, so a checked-out example
    /// runs from anywhere.
    func resolve(_ path: String) -> String {
        path.hasPrefix("/") || baseDirectory.isEmpty ? path : "\(baseDirectory)/\(path)"
    }
}

extension WorkerConfigurationFile.Credential {
    var isToken: Bool {
        if case .token = self { return true }
        return false
    }
}
