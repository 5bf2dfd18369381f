/// The command line: `--name value` pairs, each also readable from `SENDONE_NAME` (upper case,
/// dashes as underscores), so a script can set the fixed parts once.
struct SendOneOptions {
    var host: String
    var port: Int
    var caFile: String
    var keyFile: String
    var keyID: String
    var teamID: String
    var topic: String
    var token: String
    var payload: String

    static let usage = """
        usage: SendOne --host H --port P --ca-file ca.pem --key-file AuthKey_KEYID.p8 --key-id KEYID \\
                       --team-id TEAMID --topic com.example.app --token HEX [--payload JSON]
        """

    init(arguments: [String], environment: [String: String]) throws(SendOneFailure) {
        var given: [String: String] = [:]
        var rest = arguments[...]
        while let name = rest.popFirst() {
            guard name.hasPrefix("--"), let value = rest.popFirst() else {
                throw SendOneFailure("expected --name value, got \(name)\n\(Self.usage)")
            }
            given[String(name.dropFirst(2))] = value
        }
        func value(_ name: String, default fallback: String? = nil) throws(SendOneFailure) -> String {
            let variable = "SENDONE_" + name.uppercased().replacing("-", with: "_")
            guard let found = given[name] ?? environment[variable] ?? fallback else {
                throw SendOneFailure("missing --\(name) (or \(variable))\n\(Self.usage)")
            }
            return found
        }
        self.host = try value("host", default: "127.0.0.1")
        let port = try value("port")
        guard let number = Int(port), (1...65_535).contains(number) else {
            throw SendOneFailure("--port \(port) is no port number")
        }
        self.port = number
        self.caFile = try value("ca-file")
        self.keyFile = try value("key-file")
        self.keyID = try value("key-id")
        self.teamID = try value("team-id")
        self.topic = try value("topic")
        self.token = try value("token")
        self.payload = try value("payload", default: #"{"aps":{"alert":"Hello from SendOne"}}"#)
    }
}

/// Why SendOne gave up, printed on standard error.
struct SendOneFailure: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
