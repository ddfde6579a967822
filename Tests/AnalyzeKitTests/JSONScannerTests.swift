import XCTest
@testable import AnalyzeKit
import EventGenerator

final class JSONScannerTests: XCTestCase {
    /// Whether `text` is one valid JSON value (with surrounding whitespace).
    private func isValid(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw in
            var scanner = JSONScanner(raw)
            let start = scanner.skipWhitespace(0)
            guard let value = scanner.scanValue(at: start) else { return false }
            return scanner.skipWhitespace(value.end) == raw.count
        }
    }

    private func isValid(_ text: String) -> Bool { isValid(Array(text.utf8)) }

    func testAcceptsRFC8259Values() {
        for text in [
            "{}", "[]", " {\"a\" : [1, -0, 0.5, 1e3, 1E-3, -12.5e+2, true, false, null, \"x\"]} ",
            "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\uD83D\\uDE00\"", "{\"a\":{\"b\":{\"c\":[[[]]]}}}",
            "\"é 日本 😀\"", "0", "-1",
        ] {
            XCTAssertTrue(isValid(text), text)
        }
    }

    func testRejectsInvalidJSON() {
        for text in [
            "{", "}", "{\"a\":1,}", "[1,]", "[1 2]", "{\"a\" 1}", "{a:1}", "'a'", "NaN", "Infinity", "-Infinity",
            "01", "1.", ".5", "1e", "+1", "-", "tru", "nul", "\"abc", "\"\\x\"", "\"\\u12G4\"",
            "\"\\uD800\"", "\"\\uDC00\"", "\"\\uD800\\u0041\"", "{\"a\":1} x", "// c\n{}", "{\"a\":1 /* c */}",
            "\"tab\there\"", "[1]]", "{\"a\":1}}",
        ] {
            XCTAssertFalse(isValid(text), text)
        }
    }

    /// RFC 8259: a control character (U+0000 to U+001F) is escaped inside a
    /// string, never raw, wherever it lies in a long string (where 16 bytes
    /// at a time are looked at) and whichever it is (found by mutation
    /// testing: 0x1F let through by the 16-byte scan passed).
    func testRejectsEveryRawControlCharacterAnywhereInALongString() {
        for control in UInt8(0)...0x1F {
            for at in 0..<40 {
                var body = [UInt8](repeating: UInt8(ascii: "a"), count: 40)
                body[at] = control
                XCTAssertFalse(isValid([UInt8(ascii: "\"")] + body + [UInt8(ascii: "\"")]), "0x\(String(control, radix: 16)) at \(at)")
            }
        }
    }

    func testRejectsInvalidUTF8() {
        let cases: [[UInt8]] = [
            [0x22, 0xFF, 0x22],               // never valid
            [0x22, 0xC0, 0xAF, 0x22],         // overlong "/"
            [0x22, 0xED, 0xA0, 0x80, 0x22],   // encoded surrogate U+D800
            [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], // above U+10FFFF
            [0x22, 0xE2, 0x82, 0x22],         // truncated sequence
            [0x22, 0x80, 0x22],               // lone continuation byte
        ]
        for bytes in cases { XCTAssertFalse(isValid(bytes), "\(bytes)") }
        XCTAssertTrue(isValid([0x22, 0xF0, 0x9F, 0x98, 0x80, 0x22]))
    }

    /// A high surrogate escape must be followed by a *low* surrogate escape
    /// (`\uDC00`–`\uDFFF`): an escape above that range (`\uE000`) leaves it
    /// a lone surrogate (regression, mutation testing: only the lower bound
    /// of the low range was checked).
    func testHighSurrogateNeedsALowSurrogateEscapeAfterIt() {
        for text in ["\"\\uD800\\uE000\"", "\"\\uDBFF\\uFFFF\"", "\"\\uD83D\\uE001x\""] {
            XCTAssertFalse(isValid(text), text)
        }
        XCTAssertTrue(isValid("\"\\uD800\\uDFFF\""))
        XCTAssertTrue(isValid("\"\\uDBFF\\uDC00\""))
    }

    /// A low surrogate escape alone is invalid over its whole range
    /// `\uDC00`–`\uDFFF`, its top included (regression, mutation testing: a
    /// lone `\uDFFF` was accepted when the range's upper bound was exclusive).
    func testLoneLowSurrogateEscapesAreInvalidToTheTopOfTheirRange() {
        for text in ["\"\\uDC00\"", "\"\\uDFFE\"", "\"\\uDFFF\"", "\"\\udfff\"", "\"x\\uDFFFy\""] {
            XCTAssertFalse(isValid(text), text)
        }
        XCTAssertTrue(isValid("\"\\uD7FF\\uE000\""))
    }

    /// A two-byte sequence needs a lead of `C2`–`DF`: `C1 80`–`C1 BF` are
    /// overlong spellings of U+0040–U+007F, as `C0 xx` are of U+0000–U+003F
    /// (regression, mutation testing: only `C0` leads were tested).
    func testRejectsOverlongTwoByteSequencesLedByC1() {
        for bytes: [UInt8] in [[0x22, 0xC1, 0x80, 0x22], [0x22, 0xC1, 0xBF, 0x22], [0x22, 0x61, 0xC1, 0xA1, 0x22]] {
            XCTAssertFalse(isValid(bytes), "\(bytes)")
        }
        XCTAssertTrue(isValid([0x22, 0xC2, 0x80, 0x22]))
        XCTAssertTrue(isValid([0x22, 0xDF, 0xBF, 0x22]))
    }

    /// A four-byte sequence led by `F0` needs a second byte of `90`–`BF`:
    /// `F0 80 80 80`–`F0 8F BF BF` are overlong spellings of U+0000–U+FFFF
    /// (regression, mutation testing: a bound of `8F` was accepted).
    func testRejectsOverlongFourByteSequences() {
        for bytes: [UInt8] in [[0x22, 0xF0, 0x8F, 0xBF, 0xBF, 0x22], [0x22, 0xF0, 0x80, 0x80, 0x80, 0x22]] {
            XCTAssertFalse(isValid(bytes), "\(bytes)")
        }
        XCTAssertTrue(isValid([0x22, 0xF0, 0x90, 0x80, 0x80, 0x22]))  // U+10000
    }

    /// A continuation byte is `80`–`BF`: `C0` (and above) after a lead byte is
    /// not one (regression, mutation testing: an upper bound of `C0` was
    /// accepted).
    func testRejectsAContinuationByteAboveBF() {
        for bytes: [UInt8] in [[0x22, 0xC2, 0xC0, 0x22], [0x22, 0xE2, 0x82, 0xC0, 0x22], [0x22, 0xF1, 0x80, 0xC0, 0x80, 0x22],
                               [0x22, 0xE1, 0xC0, 0x80, 0x22]] {
            XCTAssertFalse(isValid(bytes), "\(bytes)")
        }
        XCTAssertTrue(isValid([0x22, 0xC2, 0xBF, 0x22]))
        XCTAssertTrue(isValid([0x22, 0xE2, 0x82, 0xAC, 0x22]))  // €
    }

    /// A three-byte sequence led by `E0` needs a second byte of `A0`–`BF`:
    /// `E0 80 80`–`E0 9F BF` are overlong spellings of U+0000–U+07FF
    /// (regression, mutation testing: only `C0`/`C1` overlongs were tested).
    func testRejectsOverlongThreeByteSequences() {
        for bytes: [UInt8] in [[0x22, 0xE0, 0x80, 0x80, 0x22], [0x22, 0xE0, 0x9F, 0xBF, 0x22], [0x22, 0xE0, 0x80, 0xAF, 0x22]] {
            XCTAssertFalse(isValid(bytes), "\(bytes)")
        }
        XCTAssertTrue(isValid([0x22, 0xE0, 0xA0, 0x80, 0x22]))  // U+0800, the first three-byte scalar
    }

    func testDeepNestingNeedsNoStack() {
        let depth = 100_000
        XCTAssertTrue(isValid(String(repeating: "[", count: depth) + String(repeating: "]", count: depth)))
        XCTAssertFalse(isValid(String(repeating: "[", count: depth) + String(repeating: "]", count: depth - 1)))
        let objects = String(repeating: "{\"a\":", count: depth) + "1" + String(repeating: "}", count: depth)
        XCTAssertTrue(isValid(objects))
    }

    func testDecodesEscapesAndSurrogatePairs() {
        let text = Array("\"a\\\"b\\\\c\\/d\\u00e9\\uD83D\\uDE00\\n\"".utf8)
        text.withUnsafeBytes { raw in
            var scanner = JSONScanner(raw)
            let value = scanner.scanValue(at: 0)!
            XCTAssertTrue(value.hasEscapes)
            var decoded: [UInt8] = []
            scanner.decodeString(value, into: &decoded)
            XCTAssertEqual(String(decoding: decoded, as: UTF8.self), "a\"b\\c/dé😀\n")
        }
    }

    /// `\u` escapes at the edges of each UTF-8 length decode to the shortest
    /// form: U+007F one byte, U+07FF two, U+FFFF three (never an overlong
    /// `C1 BF`, `E0 9F BF` or `F0 8F BF BF`), and the highest surrogate pair
    /// four (regression, mutation testing: each length's upper bound, one
    /// lower, still passed the seeded model, which rarely meets the edges).
    func testDecodesEscapesAtTheEdgesOfEachUTF8Length() {
        let cases: [(String, [UInt8])] = [
            ("\\u007F", [0x7F]), ("\\u0080", [0xC2, 0x80]), ("\\u07FF", [0xDF, 0xBF]), ("\\u0800", [0xE0, 0xA0, 0x80]),
            ("\\uFFFF", [0xEF, 0xBF, 0xBF]), ("\\uD800\\uDC00", [0xF0, 0x90, 0x80, 0x80]),
            ("\\uDBFF\\uDFFF", [0xF4, 0x8F, 0xBF, 0xBF]), ("\\u007f\\u07ff\\uffff", [0x7F, 0xDF, 0xBF, 0xEF, 0xBF, 0xBF]),
        ]
        for (escapes, expected) in cases {
            let text = Array(("\"" + escapes + "\"").utf8)
            text.withUnsafeBytes { raw in
                var scanner = JSONScanner(raw)
                guard let value = scanner.scanValue(at: 0) else { return XCTFail(escapes) }
                var decoded: [UInt8] = []
                scanner.decodeString(value, into: &decoded)
                XCTAssertEqual(decoded, expected, escapes)
            }
        }
    }

    /// Seeded strings of every piece a JSON string can hold — plain ASCII,
    /// the short escapes, `\u` escapes in both letter cases, surrogate pairs
    /// and raw UTF-8 — decode to the bytes a piece-by-piece model gives; into
    /// an empty array, after bytes already there (appending), and replacing a
    /// longer earlier result.
    func testDecodingMatchesAModelOfEachPiece() {
        var rng = SplitMix64(2026)
        func utf8(_ scalar: UInt32) -> [UInt8] { Array(String(Character(Unicode.Scalar(scalar)!)).utf8) }
        func hex(_ unit: UInt32, upper: Bool) -> String {
            let digits = String(unit, radix: 16, uppercase: upper)
            return String(repeating: "0", count: 4 - digits.count) + digits
        }
        func randomScalar(below limit: UInt32, from low: UInt32) -> UInt32 {
            while true {
                let scalar = low + UInt32(rng.next() % UInt64(limit - low))
                if !(0xD800...0xDFFF).contains(scalar) { return scalar }
            }
        }
        var previous: [UInt8] = Array(repeating: 0x41, count: 300)
        for _ in 0..<2_000 {
            var text: [UInt8] = [0x22]
            var expected: [UInt8] = []
            for _ in 0..<Int(rng.next() % 24) {
                switch rng.next() % 6 {
                case 0:
                    var c = UInt8(0x20 + rng.next() % 95)
                    if c == 0x22 || c == 0x5C { c = 0x61 }
                    text.append(c)
                    expected.append(c)
                case 1:
                    let (escape, decoded) = [("\\\"", 0x22), ("\\\\", 0x5C), ("\\/", 0x2F), ("\\b", 0x08), ("\\f", 0x0C),
                                             ("\\n", 0x0A), ("\\r", 0x0D), ("\\t", 0x09)][Int(rng.next() % 8)]
                    text += Array(escape.utf8)
                    expected.append(UInt8(decoded))
                case 2:
                    let scalar = randomScalar(below: 0x10000, from: 0)
                    text += Array("\\u\(hex(scalar, upper: rng.next() % 2 == 0))".utf8)
                    expected += utf8(scalar)
                case 3:
                    let scalar = randomScalar(below: 0x110000, from: 0x10000)
                    let high = 0xD800 + ((scalar - 0x10000) >> 10), low = 0xDC00 + ((scalar - 0x10000) & 0x3FF)
                    let upper = rng.next() % 2 == 0
                    text += Array("\\u\(hex(high, upper: upper))\\u\(hex(low, upper: !upper))".utf8)
                    expected += utf8(scalar)
                default:
                    let scalar = randomScalar(below: 0x110000, from: 0x20)
                    if scalar == 0x22 || scalar == 0x5C || (0x7F...0x9F).contains(scalar) { continue }
                    text += utf8(scalar)
                    expected += utf8(scalar)
                }
            }
            text.append(0x22)
            text.withUnsafeBytes { raw in
                var scanner = JSONScanner(raw)
                guard let value = scanner.scanValue(at: 0) else { return XCTFail("not a valid string: \(text)") }
                XCTAssertEqual(value.end, raw.count)
                var decoded: [UInt8] = []
                scanner.decodeString(value, into: &decoded)
                XCTAssertEqual(decoded, expected, "\(text)")
                var appended: [UInt8] = [1, 2, 3]
                scanner.appendDecodedString(value, to: &appended)
                XCTAssertEqual(appended, [1, 2, 3] + expected)
                scanner.decodeString(value, into: &previous)
                XCTAssertEqual(previous, expected)
            }
        }
    }

    func testMarksPlainIntegers() {
        for (text, plain) in [("12", true), ("-3", true), ("0", true), ("1.0", false), ("1e3", false), ("-0.5", false)] {
            Array(text.utf8).withUnsafeBytes { raw in
                var scanner = JSONScanner(raw)
                XCTAssertEqual(scanner.scanValue(at: 0)!.isPlainInteger, plain, text)
            }
        }
    }

    func testFindsRepeatedKeysAtAnyDepthOnDecodedBytes() {
        func repeated(_ text: String) -> Bool {
            repeatedKeyInTape(text)
        }
        XCTAssertFalse(repeated("{\"a\":1,\"b\":{\"a\":2},\"c\":[{\"a\":3},{\"a\":4}]}"))
        XCTAssertTrue(repeated("{\"a\":1,\"a\":2}"))
        XCTAssertTrue(repeated("{\"x\":{\"y\":[{\"k\":1,\"k\":2}]}}"))
        XCTAssertTrue(repeated("{\"a\":1,\"\\u0061\":2}"))
        XCTAssertFalse(repeated("{\"a\":\"a\",\"b\":\"a\"}"))
        // NFC é and NFD e + U+0301 are different keys.
        XCTAssertFalse(repeated("{\"\u{E9}\":1,\"e\u{301}\":2}"))
    }
}

extension JSONScannerTests {
    /// The tape holds every value in document order, with keys, kinds, spans and
    /// sibling links that skip nested subtrees.
    func testActionTapeRecordsStructureInDocumentOrder() {
        let text = #"{"a":1, "b":{"c":[true,{}]},"d":"x\n"}"#
        Array(text.utf8).withUnsafeBytes { raw in
            var scanner = JSONScanner(raw)
            var tape = ActionTape()
            XCTAssertEqual(scanner.scanContainer(at: 0, visitor: &tape), raw.count)
            let entries = tape.entries
            XCTAssertEqual(entries.map(\.value.kind), [.object, .number, .object, .array, .boolean, .object, .string])
            XCTAssertEqual(entries.map(\.next), [7, 2, 6, 6, 5, 6, 7])
            var scratch: [UInt8] = []
            let keys = entries.indices.map { index in
                entries[index].hasKey ? tape.withKey(of: index, in: scanner, scratch: &scratch) { String(decoding: $0, as: UTF8.self) } : "-"
            }
            XCTAssertEqual(keys, ["-", "a", "b", "c", "-", "-", "d"])
            func children(_ index: Int) -> [Int] { Array(tape.children(of: index)) }
            XCTAssertEqual(children(0), [1, 2, 6])
            XCTAssertEqual(children(2), [3])
            XCTAssertEqual(children(3), [4, 5])
            XCTAssertEqual(children(5), [])
            // Spans: `{"c":[true,{}]}` for b, `"x\n"` (escaped) for d.
            let b = entries[2].value, d = entries[6].value
            XCTAssertEqual(String(decoding: UnsafeRawBufferPointer(rebasing: raw[b.start..<b.end]), as: UTF8.self), #"{"c":[true,{}]}"#)
            XCTAssertEqual(String(decoding: UnsafeRawBufferPointer(rebasing: raw[d.start..<d.end]), as: UTF8.self), #""x\n""#)
            XCTAssertTrue(d.hasEscapes)
            // Reused for the next container: nothing of the first remains.
            tape.reset()
            XCTAssertEqual(scanner.scanContainer(at: 17, visitor: &tape), 26)
            XCTAssertEqual(tape.entries.map(\.value.kind), [.array, .boolean, .object])
        }
    }

    /// Regression: keys sharing a prefix must all be compared, not only neighbours.
    func testRepeatedKeysWithASharedPrefixAreFound() {
        func repeated(_ text: String) -> Bool {
            repeatedKeyInTape(text)
        }
        XCTAssertTrue(repeated("{\"abcdefgh1\":1,\"abcdefgh2\":2,\"abcdefgh1\":3}"))
        XCTAssertTrue(repeated("{\"abcdefgh2\":1,\"abcdefgh1\":2,\"abcdefgh3\":0,\"abcdefgh2\":3}"))
        XCTAssertFalse(repeated("{\"abcdefgh1\":1,\"abcdefgh2\":2,\"abcdefgh3\":3}"))
        let many = (0..<3000).map { "\"key\($0)\":\($0)" }.joined(separator: ",")
        XCTAssertFalse(repeated("{" + many + "}"))
        XCTAssertTrue(repeated("{" + many + ",\"key1234\":0}"))
        // Many keys with one prefix and length must not take quadratic time.
        let alike = (0..<50_000).map { "\"prefix_\(100_000 + $0)\":0" }.joined(separator: ",")
        XCTAssertFalse(repeated("{" + alike + "}"))
        XCTAssertTrue(repeated("{" + alike + ",\"prefix_100007\":1}"))
    }

    /// Objects of more than 8 keys, and objects with an escaped key, are
    /// compared on decoded copies of their keys in scratch the tape keeps
    /// (the others in place, also beside an object with an escape): one tape
    /// is used here for container after container, so a copy left from an
    /// earlier object or line shows.
    func testRepeatedKeysAreFoundOnDecodedCopiesKeptFromObjectToObject() {
        let nine = (1...9).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        let cases: [(String, Bool)] = [
            ("{\"\\u0078\":0,\"o\":{\"a\":1,\"b\":2}}", false),        // a small object beside one with an escape
            ("{\"\\u0078\":0,\"o\":{\"a\":1,\"a\":2}}", true),
            ("{\"\\u0078\":0,\"o\":{\"\":1,\"\":2}}", true),          // two empty keys
            ("{\"\\u0078\":0,\"o\":{\"\":1,\"a\":2}}", false),
            ("{\"\\u0078\":0,\"x\":1}", true),                       // an escaped key and its plain spelling
            ("{" + nine + "}", false),
            ("{" + nine + ",\"k4\":0}", true),                           // nine keys and a repeat
            ("{" + nine + ",\"k\\u0034\":0}", true),                    // ... written with an escape
            ("{" + nine + ",\"k\":0,\"k10\":0,\"k1\\u0030\":0}", true), // prefixes, then a repeat
            ("{" + nine + ",\"k\":0,\"k10\":0,\"\":0}", false),
            ("{\"a\":{" + nine + "},\"b\":{" + nine + "}}", false),      // the same keys in two objects
            ("[{\"\\u0061\":1},{\"a\":1},{\"b\":1,\"\\u0062\":1}]", true),
            ("[{\"\\u0061\":1},{\"a\":1},{\"b\":1,\"\\u0063\":1}]", false),
        ]
        var tape = ActionTape()
        for (text, expected) in cases + cases.reversed() {
            Array(text.utf8).withUnsafeBytes { raw in
                var scanner = JSONScanner(raw)
                tape.reset()
                XCTAssertEqual(scanner.scanContainer(at: 0, visitor: &tape), raw.count, text)
                XCTAssertEqual(tape.hasRepeatedKey(in: scanner), expected, text)
            }
        }
    }
}

/// Records `text` (one object) in an ``ActionTape`` and checks it for repeated keys.
private func repeatedKeyInTape(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> Bool {
    Array(text.utf8).withUnsafeBytes { raw in
        var scanner = JSONScanner(raw)
        var tape = ActionTape()
        guard let end = scanner.scanContainer(at: 0, visitor: &tape) else {
            XCTFail("not valid JSON: \(text)", file: file, line: line)
            return false
        }
        XCTAssertEqual(end, raw.count, file: file, line: line)
        return tape.hasRepeatedKey(in: scanner)
    }
}
