import SalvoAPNs
import Testing

@Suite struct APNsIDTests {
    static let token = try! DeviceToken(hex: String(repeating: "ab", count: 32))
    static let otherToken = try! DeviceToken(hex: String(repeating: "cd", count: 32))

    /// Canonical lowercase 8-4-4-4-12.
    static func isCanonical(_ text: String) -> Bool {
        let groups = text.split(separator: "-", omittingEmptySubsequences: false)
        return groups.map(\.count) == [8, 4, 4, 4, 12]
            && groups.allSatisfy { $0.allSatisfy { "0123456789abcdef".contains($0) } }
    }

    @Test func deterministicIDsAreStableValidAndPerToken() {
        let first = APNsID.deterministic(jobID: "job-42", token: Self.token)
        let again = APNsID.deterministic(jobID: "job-42", token: Self.token)
        #expect(first == again)
        #expect(first != APNsID.deterministic(jobID: "job-42", token: Self.otherToken))
        #expect(first != APNsID.deterministic(jobID: "job-43", token: Self.token))
        #expect(Self.isCanonical(first.description))
        #expect(first.version == 5)
        // RFC 4122 variant: the first digit of the fourth group is 8, 9, a or b.
        let fourthGroup = first.description.split(separator: "-")[3]
        #expect("89ab".contains(fourthGroup.first!))
    }

    @Test func deterministicIDsAreLengthPrefixed() throws {
        // Without the length prefix, ("abcd", "ef0…") and ("ab", "cdef0…") would hash the same bytes.
        let zeros = String(repeating: "0", count: 14)
        let shortToken = try DeviceToken(hex: "ef" + zeros)
        let longToken = try DeviceToken(hex: "cdef" + zeros)
        #expect(
            APNsID.deterministic(jobID: "abcd", token: shortToken)
                != APNsID.deterministic(jobID: "ab", token: longToken))
    }

    @Test func randomIDsAreVersion4AndDistinct() {
        let ids = (0..<100).map { _ in APNsID.random() }
        #expect(Set(ids).count == 100)
        #expect(ids.allSatisfy { $0.version == 4 && Self.isCanonical($0.description) })
    }

    @Test func parsesEitherCaseAndPrintsLowercase() throws {
        let text = "EABEAE54-14A8-11E5-B60B-1697F925EC7B"
        let id = try #require(APNsID(text))
        #expect(id.description == text.lowercased())
        #expect(id == APNsID(text.lowercased()))
        #expect(APNsID(headerValue: id.headerValue) == id)
        #expect(id.high == 0xEABE_AE54_14A8_11E5 && id.low == 0xB60B_1697_F925_EC7B)
    }

    @Test(arguments: [
        "", "eabeae5414a811e5b60b1697f925ec7b", "eabeae54-14a8-11e5-b60b-1697f925ec7",
        "eabeae54-14a8-11e5-b60b-1697f925ec7bb", "eabeae54_14a8-11e5-b60b-1697f925ec7b",
        "gabeae54-14a8-11e5-b60b-1697f925ec7b",
    ])
    func rejectsNonCanonicalText(text: String) {
        #expect(APNsID(text) == nil)
    }
}
