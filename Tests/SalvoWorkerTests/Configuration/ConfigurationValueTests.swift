import Testing

@testable import SalvoWorker

@Suite("Configuration values")
struct ConfigurationValueTests {
    @Test(
        "durations need a unit",
        arguments: [
            ("500ms", Duration.milliseconds(500)), ("30s", .seconds(30)), ("2m", .seconds(120)),
            ("1h", .seconds(3_600)),
            ("1.5s", .milliseconds(1_500)), ("250us", .microseconds(250)), ("10ns", .nanoseconds(10)), ("0s", .zero),
        ])
    func durationParses(_ text: String, _ expected: Duration) {
        #expect(ConfigurationDuration.parse(text) == expected)
    }

    @Test("malformed durations are refused", arguments: ["30", "", "s", "-1s", "1.2.3s", "5 minutes", "1e3s", "ms500"])
    func durationRefused(_ text: String) {
        #expect(ConfigurationDuration.parse(text) == nil)
    }

    @Test("listen addresses")
    func listenAddresses() {
        #expect(
            ConfigurationListenAddress.parse("0.0.0.0:9100") == WorkerOperationsListener(host: "0.0.0.0", port: 9100))
        #expect(ConfigurationListenAddress.parse("[::1]:0") == WorkerOperationsListener(host: "::1", port: 0))
        #expect(
            ConfigurationListenAddress.parse("localhost:65535")
                == WorkerOperationsListener(host: "localhost", port: 65_535))
        for bad in ["9100", ":9100", "host:", "host:65536", "host:-1", "::1:9100", "[::1]9100", "a b:1"] {
            #expect(ConfigurationListenAddress.parse(bad) == nil, "\(bad)")
        }
    }

    @Test("secret librdkafka properties are recognised")
    func secretProperties() {
        for name in [
            "sasl.password", "ssl.key.password", "ssl.key.pem", "sasl.oauthbearer.client.secret",
            "ssl.keystore.password",
        ] {
            #expect(WorkerConfiguration.isSecret(property: name), "\(name)")
        }
        for name in ["security.protocol", "sasl.username", "bootstrap.servers", "ssl.ca.location"] {
            #expect(!WorkerConfiguration.isSecret(property: name), "\(name)")
        }
    }
}
