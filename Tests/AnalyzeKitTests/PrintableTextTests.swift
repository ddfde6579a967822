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

    /// The ends of the escaped ranges: U+001F and U+0080 … U+009F are
    /// escaped, U+0080 in the C1 form like the rest of its range; U+0020 is
    /// kept. Regression (mutation testing): U+0080 written as `\x80` (the
    /// C0 form's bound one too high) passed every test.
    func testTheEndsOfTheControlRangesAreEscapedInTheirOwnForm() {
        XCTAssertEqual(PrintableText.escaped("\u{1F} \u{80}\u{9F}"), #"\x1F \u{0080}\u{009F}"#)
    }

    func testErrorMessagesAreOneLine() {
        let error = AnalyzeError.input("cannot open 'no\npe\u{1B}[31m.gz': No such file or directory")
        XCTAssertEqual(error.message, #"cannot open 'no\npe\x1B[31m.gz': No such file or directory"#)
        XCTAssertFalse(error.message.contains("\n"))
    }
}
