import SalvoAPNs
import Testing

@Suite struct DeviceTokenTests {
    static let canonical = String(repeating: "ab", count: 32)

    @Test func normalizesToLowercaseInsideThePath() throws {
        let token = try DeviceToken(hex: Self.canonical.uppercased())
        #expect(token.hex == Self.canonical)
        #expect(String(decoding: token.path, as: UTF8.self) == "/3/device/" + Self.canonical)
        #expect(token == (try DeviceToken(hex: Self.canonical)))
    }

    @Test(arguments: [16, 64, 100, 160, 200])
    func acceptsEvenLengthsWithinRange(length: Int) throws {
        let hex = String(repeating: "0f", count: length / 2)
        #expect(try DeviceToken(hex: hex).hex == hex)
    }

    @Test(arguments: [
        "", "abc", String(repeating: "a", count: 14), String(repeating: "a", count: 65),
        String(repeating: "a", count: 202), String(repeating: "g", count: 64),
        String(repeating: "a", count: 62) + " a", String(repeating: "a", count: 62) + "-a",
    ])
    func rejectsMalformedTokens(hex: String) {
        let error = #expect(throws: APNsError.self) { try DeviceToken(hex: hex) }
        #expect(error?.code == .invalidDeviceToken)
        #expect(error?.reason == .badDeviceToken)
    }

    @Test func validatedHexIsLowercasedLikeParsedHex() throws {
        let hex = "00FFaB" + String(repeating: "9e", count: 29)
        let parsed = try DeviceToken(hex: hex)
        let trusted = Array(hex.utf8).withUnsafeBytes { DeviceToken(validatedHex: $0) }
        #expect(trusted == parsed)
        #expect(trusted.path == parsed.path)
        #expect(trusted.hex == hex.lowercased())
    }

    @Test func encodesBinaryTokens() throws {
        let token = try DeviceToken(bytes: [0x00, 0x01, 0xAB, 0xFF, 0x10, 0x20, 0x30, 0x40])
        #expect(token.hex == "0001abff10203040")
        #expect(throws: APNsError.self) { try DeviceToken(bytes: [0x01, 0x02]) }
    }

    @Test func parsesServerSidePaths() throws {
        #expect(
            try DeviceToken.parse(path: Array(("/3/device/" + Self.canonical).utf8)).get()
                == DeviceToken(hex: Self.canonical))
        #expect(DeviceToken.parse(path: Array("/3/device/".utf8)) == .failure(.missingDeviceToken))
        #expect(DeviceToken.parse(path: Array("/3/device/xyz".utf8)) == .failure(.badDeviceToken))
        #expect(DeviceToken.parse(path: Array("/2/device/abcd".utf8)) == .failure(.badPath))
        #expect(DeviceToken.parse(path: Array(("/3/device/" + Self.canonical + "/x").utf8)) == .failure(.badPath))
        #expect(DeviceToken.parse(path: Array(("/3/device/" + Self.canonical + "?a=b").utf8)) == .failure(.badPath))
    }

    /// 64 characters and fewer are stored inline, longer ones in an array: both must read back,
    /// compare and hash by their text alone, whichever way the token was made.
    @Test(arguments: [16, 62, 64, 66, 200])
    func everyLengthReadsBackComparesAndHashesByItsText(length: Int) throws {
        let upper = String(
            (0..<length).map { "0123456789ABCDEF"[String.Index(utf16Offset: $0 * 7 % 16, in: "0123456789ABCDEF")] })
        let lower = upper.lowercased()
        let parsed = try DeviceToken(hex: upper)
        let trusted = Array(upper.utf8).withUnsafeBytes { DeviceToken(validatedHex: $0) }
        let fromPath = try DeviceToken.parse(path: Array(("/3/device/" + upper).utf8)).get()
        #expect(parsed.hex == lower)
        #expect(parsed.hexBytes == Array(lower.utf8))
        #expect(parsed.withHexBytes { Array($0) } == Array(lower.utf8))
        #expect(String(decoding: parsed.path, as: UTF8.self) == "/3/device/" + lower)
        #expect(Set([parsed, trusted, fromPath]).count == 1)
        #expect(parsed == trusted && trusted == fromPath)

        var other = Array(lower.utf8)
        other[length - 1] = other[length - 1] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
        let different = try DeviceToken(hexBytes: other)
        #expect(different != parsed)
        #expect(Set([parsed, different]).count == 2)
    }

    @Test func tokensOfDifferentLengthsSharingAPrefixDiffer() throws {
        let short = try DeviceToken(hex: String(repeating: "0", count: 16))
        let long = try DeviceToken(hex: String(repeating: "0", count: 18))
        #expect(short != long)
        #expect(
            try DeviceToken(hex: String(repeating: "0", count: 64))
                != DeviceToken(hex: String(repeating: "0", count: 66)))
    }
}
