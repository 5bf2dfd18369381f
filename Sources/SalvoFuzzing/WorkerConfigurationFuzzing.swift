import Foundation
import SalvoMockAPNs
import SalvoWorker

/// Worker configuration files, loaded as `salvo worker --check-config` loads them, with relative
/// paths anchored in a directory of real key, certificate and CA files (the seeds name them), so
/// the fuzzer gets past the credential files into every later rule.
///
/// Inputs naming paths under `/dev`, `/proc`, `/sys` or `/run`, or holding a backslash (a YAML
/// escape could spell such a path), are skipped: the loader reads the files a configuration names,
/// and `/dev/zero` or a FIFO would only measure how long a read of an endless file takes.
enum WorkerConfigurationFuzzing {
    static let loader = WorkerConfigurationLoader(environment: [:])
    static let skipped: [[UInt8]] = ["/dev", "/proc", "/sys", "/run", "\\"].map { Array($0.utf8) }

    static func run(_ bytes: [UInt8]) {
        _ = load(bytes)
    }

    /// The configuration `bytes` load to (its description printed, as `--check-config` does), or
    /// nil when they are skipped or refused.
    static func load(_ bytes: [UInt8]) -> LoadedWorkerConfiguration? {
        guard !skipped.contains(where: { bytes.contains($0) }), let yaml = String(validating: bytes, as: UTF8.self)
        else { return nil }
        guard let loaded = try? loader.load(yaml: yaml, source: "fuzz.yaml", baseDirectory: FuzzFiles.directory) else {
            return nil
        }
        _ = loaded.description
        return loaded
    }
}

/// The files the worker-configuration seeds point at (`keys/AuthKey_MOCKKEY001.p8`,
/// `tls/ca.pem`, `certs/client.pem`, `certs/client-key.pem`, `certs/password`), written once per
/// process into a temporary directory.
enum FuzzFiles {
    static let directory: String = {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "salvo-fuzz-\(ProcessInfo.processInfo.processIdentifier)"
        ).path
        // Generated and written by the mock's own helpers; a failure leaves the loader to report
        // missing files, which is an input like any other.
        if let material = try? MockTLSMaterial.generate(topic: "com.example.chat") {
            for folder in ["keys", "tls", "certs"] {
                try? FileManager.default.createDirectory(
                    atPath: "\(directory)/\(folder)", withIntermediateDirectories: true)
            }
            let files = [
                ("keys/\(MockTLSMaterial.FileName.tokenKey(keyID: material.tokenKeyID))", material.tokenPrivateKeyPEM),
                ("tls/ca.pem", material.caCertificatePEM),
                ("certs/client.pem", material.clientCertificatePEM),
                ("certs/client-key.pem", material.clientPrivateKeyPEM),
                ("certs/password", "not-a-real-password\n"),
            ]
            for (name, text) in files {
                try? text.write(toFile: "\(directory)/\(name)", atomically: true, encoding: .utf8)
            }
        }
        return directory
    }()
}
