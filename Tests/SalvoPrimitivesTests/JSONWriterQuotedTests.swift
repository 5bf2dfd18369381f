import Foundation
import Testing

@testable import SalvoPrimitives

@Suite struct JSONWriterQuotedTests {
    @Test(arguments: ["", "plain", "q\"uote", "back\\slash", "line\nfeed\r\ttab", "\u{01}\u{1F}", "é 😀", "</script>"])
    func quotedTextParsesBackToItself(_ text: String) throws {
        let literal = JSONWriter.quoted(text)
        let parsed = try JSONSerialization.jsonObject(with: Data(literal.utf8), options: .fragmentsAllowed)
        #expect(parsed as? String == text, "\(literal)")
    }

    @Test func escapesOnlyWhatJSONRequires() {
        #expect(JSONWriter.quoted("a\"b\\c\nd\u{01}é") == #""a\"b\\c\nd\u0001é""#)
    }
}
