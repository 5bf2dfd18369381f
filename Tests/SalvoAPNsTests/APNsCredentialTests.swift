import Crypto
import Foundation
import NIOSSL
import SalvoAPNs
import Testing

@Suite struct APNsCredentialTests {
    @Test func loadsAP8FileAndTakesTheKeyIDFromItsName() throws {
        let files = try TestCredentials()
        defer { files.remove() }
        let (path, key) = try files.writeP8()
        let credential = try APNsTokenCredential.load(p8Path: path, teamID: TestCredentials.teamID)
        #expect(credential.keyID == TestCredentials.keyID)
        #expect(credential.teamID == TestCredentials.teamID)
        #expect(credential.publicKey.rawRepresentation == key.publicKey.rawRepresentation)
        // Key material never shows.
        #expect(!credential.description.contains("PRIVATE"))
        #expect(!APNsCredential.token(credential).description.contains(key.pemRepresentation))
    }

    @Test func p8ErrorsNameTheProblemWithoutTheKey() throws {
        let files = try TestCredentials()
        defer { files.remove() }
        let garbage = files.path("AuthKey_ABCDE12345.p8")
        try "-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n".write(
            toFile: garbage, atomically: true, encoding: .utf8)
        let invalid = #expect(throws: APNsError.self) {
            try APNsTokenCredential.load(p8Path: garbage, teamID: TestCredentials.teamID)
        }
        #expect(invalid?.code == .invalidCredential)
        #expect(invalid?.description.contains("not a key") == false)
        let missing = #expect(throws: APNsError.self) {
            try APNsTokenCredential.load(p8Path: files.path("AuthKey_ZZZZZ99999.p8"), teamID: TestCredentials.teamID)
        }
        #expect(missing?.code == .credentialUnreadable)
        let unnamed = #expect(throws: APNsError.self) {
            try APNsTokenCredential.load(p8Path: files.path("key.p8"), teamID: TestCredentials.teamID)
        }
        #expect(unnamed?.code == .invalidCredential)
    }

    @Test func idsMustBeApplesTenCharacters() {
        for (keyID, teamID) in [("AuthKey_ABCDE12345", "TEAM123456"), ("ABCDE12345", "TEAM-12345"), ("", "TEAM123456")]
        {
            #expect(throws: APNsError.self) {
                try APNsTokenCredential(keyID: keyID, teamID: teamID, privateKey: P256.Signing.PrivateKey())
            }
        }
        #expect(APNsTokenCredential.keyID(fromFileName: "/keys/AuthKey_ABCDE12345.p8") == "ABCDE12345")
        #expect(APNsTokenCredential.keyID(fromFileName: "/keys/key.p8") == nil)
    }

    @Test func loadsPEMCertificateAndReadsTheBundleIDFromTheSubject() throws {
        let files = try TestCredentials()
        defer { files.remove() }
        let (certificatePath, keyPath) = try files.writeCertificate()
        let credential = try APNsCertificateCredential.pem(certificatePath: certificatePath, privateKeyPath: keyPath)
        #expect(credential.bundleID == TestCredentials.bundleID)
        #expect(credential.certificateBundleID == TestCredentials.bundleID)
        #expect(credential.certificateChain.count == 1)
        let configured = try APNsCertificateCredential.pem(
            certificatePath: certificatePath, privateKeyPath: keyPath, bundleID: "com.example.other")
        #expect(configured.bundleID == "com.example.other")
        #expect(configured.certificateBundleID == TestCredentials.bundleID)
        #expect(!credential.description.contains("PRIVATE"))
    }

    @Test func certificateWithoutUIDFallsBackToTheConfiguredBundleID() throws {
        let files = try TestCredentials()
        defer { files.remove() }
        let (certificatePath, keyPath) = try files.writeCertificate(bundleID: nil)
        #expect(
            try APNsCertificateCredential.pem(certificatePath: certificatePath, privateKeyPath: keyPath).bundleID == nil
        )
        #expect(
            try APNsCertificateCredential.pem(
                certificatePath: certificatePath, privateKeyPath: keyPath, bundleID: "com.x"
            ).bundleID == "com.x")
    }

    @Test func loadsPKCS12AndRejectsAWrongPassword() throws {
        let files = try TestCredentials()
        defer { files.remove() }
        let (certificatePath, keyPath) = try files.writeCertificate()
        let p12 = try files.writePKCS12(certificatePath: certificatePath, keyPath: keyPath, password: "s3cret")
        let credential = try APNsCertificateCredential.pkcs12(path: p12, password: "s3cret")
        #expect(credential.bundleID == TestCredentials.bundleID)
        let pem = try APNsCertificateCredential.pem(certificatePath: certificatePath, privateKeyPath: keyPath)
        #expect(credential.certificateChain == pem.certificateChain)
        let error = #expect(throws: APNsError.self) {
            try APNsCertificateCredential.pkcs12(path: p12, password: "wrong")
        }
        #expect(error?.code == .invalidCredential)
        #expect(error?.description.contains("s3cret") == false)
    }

    @Test func tlsConfigurationCarriesTheClientCertificateAndH2() throws {
        let files = try TestCredentials()
        defer { files.remove() }
        let (certificatePath, keyPath) = try files.writeCertificate()
        let certificate = try APNsCertificateCredential.pem(certificatePath: certificatePath, privateKeyPath: keyPath)
        let withCertificate = APNsCredential.certificate(certificate).makeTLSConfiguration()
        #expect(withCertificate.applicationProtocols == ["h2"])
        #expect(withCertificate.certificateChain == certificate.certificateChain.map { .certificate($0) })
        #expect(withCertificate.privateKey == .privateKey(certificate.privateKey))
        let token = try APNsTokenCredential(
            keyID: "ABCDE12345", teamID: "TEAM123456", privateKey: P256.Signing.PrivateKey())
        let withToken = APNsCredential.token(token).makeTLSConfiguration()
        #expect(withToken.applicationProtocols == ["h2"])
        #expect(withToken.certificateChain.isEmpty)
        #expect(withToken.privateKey == nil)
    }
}
