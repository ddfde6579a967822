import XCTest
@testable import AnalyzeKit
import EventGenerator

/// ``JSONScanner/skipContainer(at:)`` — the fast skip of nested values the
/// parser does not read — against the general container scan
/// (``JSONScanner/scanContainer(at:visitor:)`` with an
/// ``IgnoringStructureVisitor``), which is the reference: the same verdict
/// and the same end on every input.
final class JSONSkipTests: XCTestCase {
    /// Both scans of the container at `start` in `bytes`: (fast, reference).
    private func bothScans(_ bytes: [UInt8], at start: Int) -> (Int?, Int?) {
        bytes.withUnsafeBytes { raw in
            var fast = JSONScanner(raw)
            var reference = JSONScanner(raw)
            var ignoring = IgnoringStructureVisitor()
            return (fast.skipContainer(at: start), reference.scanContainer(at: start, visitor: &ignoring))
        }
    }

    private func assertSameScans(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) {
        for start in bytes.indices where bytes[start] == UInt8(ascii: "{") || bytes[start] == UInt8(ascii: "[") {
            let (fast, reference) = bothScans(bytes, at: start)
            XCTAssertEqual(fast, reference, "at \(start) of \(String(decoding: bytes, as: UTF8.self).debugDescription)",
                           file: file, line: line)
        }
    }

    func testHandWrittenContainers() {
        let valid = [
            "{}", "[]", "{ }", "[ ]", "{\t\r }", "{\"a\":1}", "{ \"a\" : 1 , \"b\" : [ 1 , 2 ] }",
            "{\"platform\": \"ios\", \"os_version\": \"17.6.1\", \"n\": -0.5e+3, \"t\": true, \"f\": false, \"z\": null}",
            "[[], {}, [{}], {\"a\": []}, \"\", 0]", "{\"k\\u00e9y\": \"v\\\"al\\\\ue\", \"é\": \"日本😀\"}",
            "{\"a\":{\"b\":{\"c\":[1,[2,[3,{\"d\":\"x\"}]]]}}}",
            "[\"a string longer than sixteen bytes, and then some more of it\", \"0123456789abcdef\"]",
            "{\"0123456789abcdef\": \"0123456789abcde\", \"0123456789abcdefg\": 1}",
        ]
        let invalid = [
            "{", "[", "{\"a\"}", "{\"a\":}", "{\"a\" 1}", "{a:1}", "{\"a\":1,}", "[1,]", "[1 2]", "{,}", "[,1]",
            "{\"a\":1]", "[1}", "{\"a\":tru}", "{\"a\":nul}", "{\"a\":fals}", "{\"a\":falsy}", "[01]", "[1.]", "[-]",
            "{\"a\":\"x}", "{\"a\":\"\\x\"}", "{\"a\":\"\\uD800\"}", "{\"a\":\"tab\there\"}", "{\"a\":1}}", "[1]]",
            "{\"a\":1\n}", "{\"a\":\"line\nfeed\"}", "[\n]", "{'a':1}", "[NaN]", "{\"a\"::1}", "{\"a\":1,,\"b\":2}",
        ]
        for text in valid {
            let bytes = Array(text.utf8)
            XCTAssertEqual(bothScans(bytes, at: 0).0, bytes.count, text)
            assertSameScans(bytes)
        }
        for text in invalid {
            let bytes = Array(text.utf8)
            // Invalid as a whole: either no end, or one before trailing garbage.
            let (fast, _) = bothScans(bytes, at: 0)
            XCTAssertNotEqual(fast, bytes.count, text)
            assertSameScans(bytes)
        }
        // Invalid UTF-8 inside a string, before and after the first 16 bytes.
        for bad: [UInt8] in [[0xFF], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xE2, 0x82]] {
            for prefix in [0, 3, 15, 16, 17, 40] {
                let bytes = Array("{\"a\":\"".utf8) + [UInt8](repeating: 0x61, count: prefix) + bad + Array("\"}".utf8)
                XCTAssertNil(bothScans(bytes, at: 0).0)
                assertSameScans(bytes)
            }
        }
    }

    /// The one-space shortcut passes exactly the whitespace the loop does,
    /// from every position of seeded runs of spaces, tabs, CRs, line feeds
    /// and tokens (a line feed ends a line: never passed).
    func testOneSpaceShortcutPassesWhatTheLoopPasses() {
        var rng = SplitMix64(7)
        let pieces: [UInt8] = [0x20, 0x20, 0x20, 0x09, 0x0D, 0x0A, 0x3A, 0x2C, 0x22, 0x7B, 0x31, 0x00, 0x21, 0xFF]
        for _ in 0..<2_000 {
            let bytes = (0..<Int(rng.next() % 12)).map { _ in pieces[Int(rng.next() % UInt64(pieces.count))] }
            bytes.withUnsafeBytes { raw in
                let scanner = JSONScanner(raw)
                for i in 0...bytes.count {
                    XCTAssertEqual(scanner.skipWhitespaceOrOneSpace(i), scanner.skipWhitespace(i), "\(bytes) at \(i)")
                }
            }
        }
    }

    /// The fast loop keeps 64 levels in a register; deeper nesting goes the
    /// general way from the start, with the same result.
    func testNestingAroundTheRegistersDepth() {
        for depth in [1, 2, 63, 64, 65, 66, 200] {
            for opener in ["[", "{\"k\":"] {
                let closer = opener == "[" ? "]" : "}"
                let deep = String(repeating: opener, count: depth) + "0" + String(repeating: closer, count: depth)
                let bytes = Array(deep.utf8)
                XCTAssertEqual(bothScans(bytes, at: 0).0, bytes.count, "\(opener) × \(depth)")
                let unbalanced = Array((String(repeating: opener, count: depth) + "0"
                    + String(repeating: closer, count: depth - 1)).utf8)
                XCTAssertNil(bothScans(unbalanced, at: 0).0, "\(opener) × \(depth), one closer short")
            }
            // Objects and arrays alternating, so each level's kind matters when it closes.
            var text = ""
            for level in 0..<depth { text += level % 2 == 0 ? "[" : "{\"k\":" }
            text += "null"
            for level in (0..<depth).reversed() { text += level % 2 == 0 ? "]" : "}" }
            let bytes = Array(text.utf8)
            XCTAssertEqual(bothScans(bytes, at: 0).0, bytes.count, "alternating × \(depth)")
            // The same with one closer swapped for the other kind, at every level.
            for level in 0..<depth {
                var swapped = bytes
                let index = bytes.count - 1 - level
                swapped[index] = swapped[index] == UInt8(ascii: "]") ? UInt8(ascii: "}") : UInt8(ascii: "]")
                XCTAssertNil(bothScans(swapped, at: 0).0, "alternating × \(depth), closer \(level) swapped")
            }
        }
    }

    /// Seeded containers of every kind of value — strings of every length
    /// around the 16-byte steps, with escapes and UTF-8, numbers, literals,
    /// whitespace runs, nesting — and the same damaged by one byte: the two
    /// scans agree at every container start.
    func testSeededContainersAndTheirDamageAgreeWithTheGeneralScan() {
        var rng = SplitMix64(36)
        func pick<T>(_ items: [T]) -> T { items[Int(rng.next() % UInt64(items.count))] }
        func chance(_ percent: UInt64) -> Bool { rng.next() % 100 < percent }
        func whitespace() -> String {
            chance(70) ? "" : pick([" ", " ", "  ", "\t", "\r", " \t "])
        }
        func string() -> String {
            var text = "\""
            let length = Int(rng.next() % 40)
            for _ in 0..<length {
                text += chance(85)
                    ? String(pick(Array("abcdefghijklmnopqrstuvwxyz0123456789-_ .:,{}[]")))
                    : pick(["\\\"", "\\\\", "\\/", "\\n", "\\u00e9", "\\uD83D\\uDE00", "é", "日", "😀"])
            }
            return text + "\""
        }
        func scalar() -> String {
            pick([string(), string(), "0", "-12", "3.25", "1e9", "-0.5E-3", "true", "false", "null",
                  String(rng.next() % 1_000_000_000_000)])
        }
        func value(_ depth: Int) -> String {
            guard depth < 4, chance(35) else { return scalar() }
            let count = Int(rng.next() % 6)
            if chance(60) {
                let members = (0..<count).map { _ in
                    whitespace() + string() + whitespace() + ":" + whitespace() + value(depth + 1) + whitespace()
                }
                return "{" + (members.isEmpty ? whitespace() : members.joined(separator: ",")) + "}"
            }
            let elements = (0..<count).map { _ in whitespace() + value(depth + 1) + whitespace() }
            return "[" + (elements.isEmpty ? whitespace() : elements.joined(separator: ",")) + "]"
        }
        let damage: [UInt8] = Array("\"\\{}[],: \n\t0a-e.".utf8) + [0x00, 0x1F, 0x80, 0xC3, 0xFF]
        var containers = 0
        for _ in 0..<3_000 {
            var text = "{" + whitespace() + "\"k\":" + value(0) + whitespace() + "}"
            if chance(30) { text += pick([" ", "x", "\n{}", ",", "}"]) }
            let bytes = Array(text.utf8)
            assertSameScans(bytes)
            containers += 1
            for _ in 0..<4 {
                var damaged = bytes
                let at = Int(rng.next() % UInt64(damaged.count))
                switch rng.next() % 3 {
                case 0: damaged[at] = pick(damage)
                case 1: damaged.insert(pick(damage), at: at)
                default: damaged.remove(at: at)
                }
                assertSameScans(damaged)
                // Cut short: the scans must not read past the end.
                assertSameScans(Array(damaged.prefix(Int(rng.next() % UInt64(damaged.count + 1)))))
                containers += 1
            }
        }
        XCTAssertEqual(containers, 15_000)
    }
}
