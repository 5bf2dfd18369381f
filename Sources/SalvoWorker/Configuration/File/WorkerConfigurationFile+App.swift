import SalvoAPNs

extension WorkerConfigurationFile {
    /// One entry of `apps:`.
    struct App: Decodable, Sendable {
        /// Required for token credentials; for certificates it defaults to the certificate's UID.
        var bundleID: String?
        var credential: Credential
        /// Default: `[production]`.
        var environments: [Environment]?
        /// Default: the first environment's kind.
        var defaultEnvironment: String?
        var pool: Pool?
        var rateLimit: RateLimitSection?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case bundleID = "bundle_id"
            case credential, environments
            case defaultEnvironment = "default_environment"
            case pool
            case rateLimit = "rate_limit"
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.strictContainer(keyedBy: CodingKeys.self)
            bundleID = try container.decodeIfPresent(String.self, forKey: .bundleID)
            credential = try container.decode(Credential.self, forKey: .credential)
            environments = try container.decodeIfPresent([Environment].self, forKey: .environments)
            defaultEnvironment = try container.decodeIfPresent(String.self, forKey: .defaultEnvironment)
            pool = try container.decodeIfPresent(Pool.self, forKey: .pool)
            rateLimit = try container.decodeIfPresent(RateLimitSection.self, forKey: .rateLimit)
        }
    }

    /// `credential:` — exactly one of `token:` and `certificate:`.
    enum Credential: Decodable, Sendable {
        case token(Token)
        case certificate(Certificate)

        enum CodingKeys: String, CodingKey, CaseIterable {
            case token, certificate
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.strictContainer(keyedBy: CodingKeys.self)
            switch (container.contains(.token), container.contains(.certificate)) {
            case (true, false): self = .token(try container.decode(Token.self, forKey: .token))
            case (false, true): self = .certificate(try container.decode(Certificate.self, forKey: .certificate))
            default:
                throw DecodingError.dataCorrupted(
                    DecodingError.Context(
                        codingPath: decoder.codingPath,
                        debugDescription:
                            "give exactly one of token: {key_file, key_id, team_id} and certificate: {pkcs12_file | certificate_file + key_file}"
                    ))
            }
        }
    }

    /// `credential.token:` — a `.p8` signing key.
    struct Token: Decodable, Sendable {
        var keyFile: String
        /// Default: from Apple's file name `AuthKey_<KEYID>.p8`.
        var keyID: String?
        var teamID: String

        enum CodingKeys: String, CodingKey, CaseIterable {
            case keyFile = "key_file"
            case keyID = "key_id"
            case teamID = "team_id"
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.strictContainer(keyedBy: CodingKeys.self)
            keyFile = try container.decode(String.self, forKey: .keyFile)
            keyID = try container.decodeIfPresent(String.self, forKey: .keyID)
            teamID = try container.decode(String.self, forKey: .teamID)
        }
    }

    /// `credential.certificate:` — a PKCS#12 bundle, or a PEM certificate chain and key. The
    /// password (of the bundle, or of an encrypted PEM key) comes from an environment variable or
    /// a file, never from the YAML itself.
    struct Certificate: Decodable, Sendable {
        var pkcs12File: String?
        var certificateFile: String?
        var keyFile: String?
        var passwordEnvironmentVariable: String?
        var passwordFile: String?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case pkcs12File = "pkcs12_file"
            case certificateFile = "certificate_file"
            case keyFile = "key_file"
            case passwordEnvironmentVariable = "password_env"
            case passwordFile = "password_file"
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.strictContainer(keyedBy: CodingKeys.self)
            pkcs12File = try container.decodeIfPresent(String.self, forKey: .pkcs12File)
            certificateFile = try container.decodeIfPresent(String.self, forKey: .certificateFile)
            keyFile = try container.decodeIfPresent(String.self, forKey: .keyFile)
            passwordEnvironmentVariable = try container.decodeIfPresent(
                String.self, forKey: .passwordEnvironmentVariable)
            passwordFile = try container.decodeIfPresent(String.self, forKey: .passwordFile)
            let pem = certificateFile != nil || keyFile != nil
            guard (pkcs12File != nil) != pem, pem == false || (certificateFile != nil && keyFile != nil) else {
                throw DecodingError.dataCorrupted(
                    DecodingError.Context(
                        codingPath: decoder.codingPath,
                        debugDescription: "give either pkcs12_file, or certificate_file and key_file (PEM)"))
            }
            guard passwordEnvironmentVariable == nil || passwordFile == nil else {
                throw DecodingError.dataCorrupted(
                    DecodingError.Context(
                        codingPath: decoder.codingPath + [CodingKeys.passwordFile],
                        debugDescription: "give at most one of password_env and password_file"))
            }
        }
    }

    /// One entry of `environments:` — `production`, `sandbox` (Apple's gateways), or a custom
    /// endpoint standing in for one of them (the mock APNs).
    enum Environment: Decodable, Sendable {
        case apple(APNsEnvironment.Kind)
        case custom(CustomEndpoint)

        init(from decoder: any Decoder) throws {
            if let name = try? decoder.singleValueContainer().decode(String.self) {
                guard let kind = APNsEnvironment.Kind(rawValue: name) else {
                    throw DecodingError.dataCorrupted(
                        DecodingError.Context(
                            codingPath: decoder.codingPath,
                            debugDescription:
                                "\"\(name)\" is not an environment: write production, sandbox, or {host, port, behaves_as, ca_file, h2c}"
                        ))
                }
                self = .apple(kind)
            } else {
                self = .custom(try CustomEndpoint(from: decoder))
            }
        }

        var kind: APNsEnvironment.Kind {
            switch self {
            case .apple(let kind): return kind
            case .custom(let endpoint): return endpoint.behavesAs
            }
        }
    }

    /// `{host, port, behaves_as, ca_file?, h2c?, allow_plaintext?, tls_server_name?}`.
    struct CustomEndpoint: Decodable, Sendable {
        var host: String
        var port: Int
        var behavesAs: APNsEnvironment.Kind
        /// PEM CA certificates the endpoint's server certificate is checked against (the mock's
        /// generated CA). Default: the system's roots.
        var caFile: String?
        /// Cleartext HTTP/2 (the mock started with `--h2c`). Default: false.
        var h2c: Bool
        /// Lets `h2c` reach a host that is not a loopback address (a mock on another machine of a
        /// private network). Default: false: h2c carries the provider token, payloads and device
        /// tokens unencrypted.
        var allowPlaintext: Bool
        /// Name checked against the server certificate instead of `host`. Default: `host`.
        var tlsServerName: String?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case host, port
            case behavesAs = "behaves_as"
            case caFile = "ca_file"
            case h2c
            case allowPlaintext = "allow_plaintext"
            case tlsServerName = "tls_server_name"
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.strictContainer(keyedBy: CodingKeys.self)
            host = try container.decode(String.self, forKey: .host)
            port = try container.decode(Int.self, forKey: .port, within: ConfigurationBounds.port)
            let kind =
                try container.decodeIfPresent(String.self, forKey: .behavesAs)
                ?? APNsEnvironment.Kind.production.rawValue
            guard let behavesAs = APNsEnvironment.Kind(rawValue: kind) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .behavesAs, in: container, debugDescription: "\"\(kind)\" must be production or sandbox")
            }
            self.behavesAs = behavesAs
            caFile = try container.decodeIfPresent(String.self, forKey: .caFile)
            h2c = try container.decodeIfPresent(Bool.self, forKey: .h2c) ?? false
            allowPlaintext = try container.decodeIfPresent(Bool.self, forKey: .allowPlaintext) ?? false
            tlsServerName = try container.decodeIfPresent(String.self, forKey: .tlsServerName)
            guard !host.isEmpty else {
                throw DecodingError.dataCorruptedError(
                    forKey: .host, in: container, debugDescription: "must not be empty")
            }
            guard !(h2c && caFile != nil) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .h2c, in: container,
                    debugDescription: "h2c (cleartext) and ca_file (TLS trust) exclude each other")
            }
            guard !allowPlaintext || h2c else {
                throw DecodingError.dataCorruptedError(
                    forKey: .allowPlaintext, in: container,
                    debugDescription: "allows cleartext HTTP/2 only together with h2c: true")
            }
        }
    }

    /// `pool:` — one pool per (credential, environment) gets these settings.
    struct Pool: Decodable, Sendable {
        var connections, maximumStreams: Int?
        var connectTimeout, requestTimeout, keepaliveInterval, keepaliveTimeout: ConfigurationDuration?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case connections
            case maximumStreams = "max_streams"
            case connectTimeout = "connect_timeout"
            case requestTimeout = "request_timeout"
            case keepaliveInterval = "keepalive_interval"
            case keepaliveTimeout = "keepalive_timeout"
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.strictContainer(keyedBy: CodingKeys.self)
            connections = try container.decodeIfPresent(
                Int.self, forKey: .connections, within: ConfigurationBounds.connections)
            maximumStreams = try container.decodeIfPresent(
                Int.self, forKey: .maximumStreams, within: ConfigurationBounds.maximumStreams)
            connectTimeout = try container.decodeIfPresent(
                ConfigurationDuration.self, forKey: .connectTimeout, within: ConfigurationBounds.connectTimeout)
            requestTimeout = try container.decodeIfPresent(
                ConfigurationDuration.self, forKey: .requestTimeout, within: ConfigurationBounds.requestTimeout)
            keepaliveInterval = try container.decodeIfPresent(
                ConfigurationDuration.self, forKey: .keepaliveInterval, within: ConfigurationBounds.keepaliveInterval)
            keepaliveTimeout = try container.decodeIfPresent(
                ConfigurationDuration.self, forKey: .keepaliveTimeout, within: ConfigurationBounds.keepaliveTimeout)
        }
    }
}
