import XCTest
@testable import AnalyzeKit

final class PrintableTextTests: XCTestCase {
    func testControlCharactersAreEscapedAndEverythingElseKept() {
        XCTAssertEqual(PrintableText.escaped("/data/exports/café 2026.ndjson.gz"), "/data/exports/café 2026.ndjson.gz")
        XCTAssertEqual(PrintableText.escaped("a\nb\rc\td"), #"a\nb\rc\td"#)
        XCTAssertEqual(PrintableText.escaped("x\u{1B}[31my"), #"x\x1B[31my"#)
        XCTAssertEqual(PrintableText.escaped("\u{0}\u{7}\u{7F}"), #"\x00\x07\x7F"#)
        // C1 controls (CSI is U+009B) act on terminals too; U+00A0 is not one.
        XCTAssertEqual(PrintableText.escaped("a\u{9B}b\u{85}c\u{A0}d"), "a\\u{009B}b\\u{0085}c\u{A0}d")
        // A backslash stays as it is; U+FFFD (an undecodable byte) too.
        XCTAssertEqual(PrintableText.escaped(#"a\b"#), #"a\b"#)
        XCTAssertEqual(PrintableText.escaped("caf\u{FFFD}"), "caf\u{FFFD}")
        XCTAssertEqual(PrintableText.escaped(""), "")
    }

    func testErrorMessagesAreOneLine() {
        let error = AnalyzeError.input("cannot open 'no\npe\u{1B}[31m.gz': No such file or directory")
        XCTAssertEqual(error.message, #"cannot open 'no\npe\x1B[31m.gz': No such file or directory"#)
        XCTAssertFalse(error.message.contains("\n"))
    }
}
