import EventGenerator
import XCTest
@testable import AnalyzeKit

final class EventParserTests: XCTestCase {
    private var parser = EventParser()

    private func outcome(_ line: String) -> RejectReason? {
        Array(line.utf8).withUnsafeBytes { raw in
            switch parser.parse(raw) {
            case .accepted: return nil
            case .rejected(let reason): return reason
            }
        }
    }

    private func assertReject(_ line: String, _ reason: RejectReason?, file: StaticString = #filePath, line number: UInt = #line) {
        XCTAssertEqual(outcome(line), reason, line, file: file, line: number)
    }

    private let envelope = "\"event_id\":\"e1\",\"timestamp\":\"2026-11-28T09:15:02.123Z\",\"device_id\":\"d\",\"profile_id\":\"p\""

    func testAcceptsKnownAndUnknownTypes() {
        assertReject("{\(envelope),\"event_type\":\"sdk_activate\"}", nil)
        assertReject("{\(envelope),\"event_type\":\"logout\",\"customer_user_id\":null}", nil)
        assertReject("{\(envelope),\"event_type\":\"identify\",\"customer_user_id\":\"u\"}", nil)
        assertReject("{\"event_id\":\"x\",\"event_type\":\"paywall_shown\",\"timestamp\":1795857302123}", nil)
        assertReject("{\"event_id\":\"x\",\"event_type\":\"\",\"timestamp\":1795857302123,\"device_id\":5}", nil)
    }

    func testInvalidJSON() {
        assertReject("{\"event_id\":\"e1\",}", .invalidJSON)
        assertReject("{\(envelope),\"event_type\":\"sdk_activate\"} x", .invalidJSON)
        assertReject("{\(envelope),\"event_type\":\"sdk_activate\",\"event_id\":\"e2\"}", .invalidJSON)
        assertReject("{\(envelope),\"event_type\":\"sdk_activate\",\"event\\u005fid\":\"e2\"}", .invalidJSON)
        assertReject("{\(envelope),\"event_type\":\"sdk_activate\",\"x\":NaN}", .invalidJSON)
        assertReject("{\(envelope),\"event_type\":\"sdk_activate\",\"x\":\"\\uD800\"}", .invalidJSON)
        // Repeated keys the SPEC does not read are fine.
        assertReject("{\(envelope),\"event_type\":\"sdk_activate\",\"x\":1,\"x\":2}", nil)
        // A repeated key inside action counts only on the onboarding types.
        let action = "{\"name\":\"a\",\"name\":\"b\",\"meta\":{\"onboardingId\":\"o\"}}"
        assertReject("{\(envelope),\"event_type\":\"onboarding_analytics\",\"action\":\(action)}", .invalidJSON)
        assertReject("{\(envelope),\"event_type\":\"sdk_activate\",\"action\":\(action)}", nil)
        let good = "{\"name\":\"a\",\"meta\":{\"onboardingId\":\"o\"}}"
        assertReject("{\(envelope),\"event_type\":\"onboarding_analytics\",\"action\":\(good),\"action\":\(good)}", .invalidJSON)
        // Also inside an `action` that is an array: its objects are `action` at
        // depth (regression: read as bad_action, or missing_field without a
        // device_id, where the reference says invalid_json).
        for type in ["onboarding_analytics", "onboarding_state_updated"] {
            assertReject("{\(envelope),\"event_type\":\"\(type)\",\"action\":[{\"a\":1,\"a\":2}]}", .invalidJSON)
            assertReject("{\(envelope),\"event_type\":\"\(type)\",\"action\":[1,[{\"b\":{\"a\":1,\"a\":2}}]]}", .invalidJSON)
            assertReject("{\"event_id\":\"e\",\"event_type\":\"\(type)\",\"timestamp\":0,\"action\":[{\"a\":1,\"a\":2}]}", .invalidJSON)
            assertReject("{\(envelope),\"event_type\":\"\(type)\",\"action\":[{\"a\":1,\"b\":2},{\"a\":1}]}", .badAction)
        }
        assertReject("{\(envelope),\"event_type\":\"identify\",\"customer_user_id\":\"c\",\"action\":[{\"a\":1,\"a\":2}]}", nil)
        // Invalid JSON outranks every later reason.
        assertReject("{\"event_type\":\"identify\",\"timestamp\":\"bad\",", .invalidJSON)
    }

    func testNotAnObject() {
        for line in ["[1,2]", "\"text\"", "42", "null", "true", " [ ] \t"] { assertReject(line, .notAnObject) }
        // Data after a value that is not an object is invalid JSON, which
        // outranks not_an_object (regression, mutation testing: a parser that
        // stopped at the value's end called these not_an_object).
        for line in ["[1] x", "1 2", "\"a\"\"b\"", "null,", "[1]]", "true {}"] { assertReject(line, .invalidJSON) }
    }

    func testMissingField() {
        assertReject("{\"event_type\":\"sdk_activate\",\"timestamp\":1,\"device_id\":\"d\",\"profile_id\":\"p\"}", .missingField)
        assertReject("{\"event_id\":\"\",\"event_type\":\"x\",\"timestamp\":1}", .missingField)
        assertReject("{\"event_id\":null,\"event_type\":\"x\",\"timestamp\":1}", .missingField)
        assertReject("{\"event_id\":\"e\",\"timestamp\":1}", .missingField)
        assertReject("{\"event_id\":\"e\",\"event_type\":\"x\",\"timestamp\":null}", .missingField)
        assertReject("{\"event_id\":\"e\",\"event_type\":\"sdk_activate\",\"timestamp\":1,\"profile_id\":\"p\"}", .missingField)
        assertReject("{\"event_id\":\"e\",\"event_type\":\"logout\",\"timestamp\":1,\"device_id\":\"d\",\"profile_id\":\"\"}", .missingField)
        assertReject("{\(envelope),\"event_type\":\"identify\"}", .missingField)
        assertReject("{\(envelope),\"event_type\":\"identify\",\"customer_user_id\":\"\"}", .missingField)
        assertReject("{\(envelope),\"event_type\":\"identify\",\"customer_user_id\":null}", .missingField)
        // missing_field outranks wrong_type on another key.
        assertReject("{\"event_id\":5,\"event_type\":\"sdk_activate\",\"timestamp\":1,\"profile_id\":\"p\"}", .missingField)
        // On unknown types only event_id, event_type and timestamp are required.
        assertReject("{\"event_id\":\"e\",\"event_type\":\"other\",\"timestamp\":1}", nil)
    }

    /// SPEC §2 rejects, 4: a required envelope key that is `null` is
    /// missing_field (not wrong_type), on every type that requires it.
    func testNullRequiredKeysAreMissingField() {
        let ids = "\"event_id\":\"e\",\"timestamp\":1"
        assertReject("{\(ids),\"event_type\":null,\"device_id\":\"d\",\"profile_id\":\"p\"}", .missingField)
        for type in ["sdk_activate", "identify", "logout", "onboarding_state_updated", "onboarding_analytics"] {
            let cuid = ",\"customer_user_id\":\"u\""
            assertReject("{\(ids),\"event_type\":\"\(type)\",\"device_id\":null,\"profile_id\":\"p\"\(cuid)}", .missingField)
            assertReject("{\(ids),\"event_type\":\"\(type)\",\"device_id\":\"d\",\"profile_id\":null\(cuid)}", .missingField)
            // null outranks a wrong type on another key, and a bad timestamp.
            assertReject("{\"event_id\":\"e\",\"timestamp\":\"bad\",\"event_type\":\"\(type)\",\"device_id\":7,\"profile_id\":null\(cuid)}", .missingField)
        }
        // null event_type outranks a wrong-typed event_id (missing_field before wrong_type).
        assertReject("{\"event_id\":5,\"event_type\":null,\"timestamp\":1}", .missingField)
        // On an unknown type device_id and profile_id are not required: null is fine.
        assertReject("{\(ids),\"event_type\":\"paywall_shown\",\"device_id\":null,\"profile_id\":null}", nil)
        // Matching of event_type is case-sensitive: "Logout" is unknown, so its null ids are fine.
        assertReject("{\(ids),\"event_type\":\"Logout\",\"device_id\":null,\"profile_id\":null}", nil)
    }

    /// SPEC §2 rejects, 2: `action` is not an envelope key, so a repeated
    /// top-level `action` is only checked on the two onboarding types; on
    /// any other type it is a key the SPEC does not read, and the event is
    /// accepted, whatever the two values are.
    func testRepeatedTopLevelActionOutsideTheOnboardingTypes() {
        let good = "{\"elementId\":\"q\",\"meta\":{\"onboardingId\":\"o\"},\"params\":{\"type\":\"input\",\"value\":{}}}"
        for type in ["sdk_activate", "identify", "logout", "paywall_shown", "Onboarding_state_updated"] {
            let cuid = type == "identify" ? ",\"customer_user_id\":\"u\"" : ""
            let head = "{\(envelope),\"event_type\":\"\(type)\"\(cuid)"
            assertReject(head + ",\"action\":\(good),\"action\":\(good)}", nil)
            assertReject(head + ",\"action\":1,\"action\":{\"a\":1,\"a\":2}}", nil)
        }
        // The same on onboarding_state_updated is invalid_json, even with two well-formed actions.
        assertReject("{\(envelope),\"event_type\":\"onboarding_state_updated\",\"action\":\(good),\"action\":\(good)}", .invalidJSON)
        assertReject("{\(envelope),\"event_type\":\"onboarding_state_updated\",\"action\":\(good)}", nil)
    }

    func testWrongType() {
        assertReject("{\"event_id\":7,\"event_type\":\"x\",\"timestamp\":1}", .wrongType)
        assertReject("{\"event_id\":\"e\",\"event_type\":[],\"timestamp\":1}", .wrongType)
        assertReject("{\"event_id\":\"e\",\"event_type\":\"x\",\"timestamp\":true}", .wrongType)
        assertReject("{\"event_id\":\"e\",\"event_type\":\"sdk_activate\",\"timestamp\":1,\"device_id\":12345,\"profile_id\":\"p\"}", .wrongType)
        assertReject("{\(envelope),\"event_type\":\"sdk_activate\",\"customer_user_id\":7}", .wrongType)
        assertReject("{\(envelope),\"event_type\":\"identify\",\"customer_user_id\":{}}", .wrongType)
        // Present but not a string on identify: wrong_type, as rule 5's example says, not
        // missing_field (docs/data-model.md).
        for value in ["7", "[]", "false"] {
            assertReject("{\(envelope),\"event_type\":\"identify\",\"customer_user_id\":\(value)}", .wrongType)
        }
        // Unknown types never check device / profile / customer user id types.
        assertReject("{\"event_id\":\"e\",\"event_type\":\"x\",\"timestamp\":1,\"device_id\":1,\"customer_user_id\":7}", nil)
        // wrong_type outranks bad_timestamp.
        assertReject("{\"event_id\":\"e\",\"event_type\":\"sdk_activate\",\"timestamp\":\"no\",\"device_id\":1,\"profile_id\":\"p\"}", .wrongType)
    }

    func testBadTimestamp() {
        for timestamp in [
            "\"2026-11-28 09:15:02Z\"", "\"2026-11-28T09:15Z\"", "\"2026-11-28T09:15:02+0900\"", "\"2026-11-28T09:15:02\"",
            "\"2026-11-28T23:59:60Z\"", "\"2026-02-30T00:00:00Z\"", "\"2026-11-28T09:15:02.1234567890Z\"", "\"\"",
            "1.7e12", "1795857302123.0", "\"1795857302123\"", "-99999999999999999",
        ] {
            assertReject("{\"event_id\":\"e\",\"event_type\":\"x\",\"timestamp\":\(timestamp)}", .badTimestamp)
        }
        for timestamp in ["\"2026-11-28t09:15:02z\"", "\"2026-11-28T18:15:02+09:00\"", "\"2024-02-29T00:00:00.123456789-00:00\"", "0"] {
            assertReject("{\"event_id\":\"e\",\"event_type\":\"x\",\"timestamp\":\(timestamp)}", nil)
        }
    }

    func testBadAction() {
        let head = "{\(envelope),\"event_type\":\"onboarding_state_updated\""
        let meta = "\"meta\":{\"onboardingId\":\"o\",\"screenClientId\":null,\"screenIndex\":1,\"screensTotal\":4}"
        func line(_ action: String) -> String { head + ",\"action\":" + action + "}" }
        assertReject(line("{\"elementId\":\"q\",\(meta),\"params\":{\"type\":\"select\",\"value\":{\"id\":\"a\",\"label\":null}}}"), nil)
        assertReject(line("{\"elementId\":\"q\",\(meta),\"params\":{\"type\":\"multiSelect\",\"value\":[]}}"), nil)
        assertReject(line("{\"elementId\":\"q\",\(meta),\"params\":{\"type\":\"input\",\"value\":{\"type\":\"text\",\"value\":\"x\"}}}"), nil)
        assertReject(line("{\"elementId\":\"q\",\(meta),\"params\":{\"type\":\"datePicker\",\"value\":{\"day\":1,\"year\":null}}}"), nil)
        assertReject(line("{\"elementId\":\"q\",\(meta),\"params\":{\"type\":\"slider\",\"value\":0.5}}"), nil)
        assertReject(head + "}", .badAction)
        assertReject(head + ",\"action\":null}", .badAction)
        assertReject(head + ",\"action\":[]}", .badAction)
        assertReject(line("{\(meta),\"params\":{\"type\":\"select\",\"value\":{\"id\":\"a\"}}}"), .badAction)
        assertReject(line("{\"elementId\":\"q\",\"meta\":{},\"params\":{\"type\":\"select\",\"value\":{\"id\":\"a\"}}}"), .badAction)
        assertReject(line("{\"elementId\":\"q\",\"meta\":{\"onboardingId\":\"o\",\"screenIndex\":1.5},\"params\":{\"type\":\"input\",\"value\":{}}}"), .badAction)
        assertReject(line("{\"elementId\":\"q\",\(meta),\"params\":{\"type\":\"select\",\"value\":{\"id\":3}}}"), .badAction)
        assertReject(line("{\"elementId\":\"q\",\(meta),\"params\":{\"type\":\"select\",\"value\":{\"id\":\"a\",\"label\":1}}}"), .badAction)
        assertReject(line("{\"elementId\":\"q\",\(meta),\"params\":{\"type\":\"multiSelect\",\"value\":[{\"id\":\"a\"},2]}}"), .badAction)
        assertReject(line("{\"elementId\":\"q\",\(meta),\"params\":{\"type\":\"multiSelect\",\"value\":{\"id\":\"a\"}}}"), .badAction)
        assertReject(line("{\"elementId\":\"q\",\(meta),\"params\":{\"type\":\"datePicker\",\"value\":{\"day\":\"1\"}}}"), .badAction)
        assertReject(line("{\"elementId\":\"q\",\(meta),\"params\":{\"type\":\"input\",\"value\":\"x\"}}"), .badAction)
        assertReject(line("{\"elementId\":\"q\",\(meta),\"params\":{\"value\":{}}}"), .badAction)
        // Wrongly typed identifiers (null counts as absent for a required field too).
        let params = "\"params\":{\"type\":\"select\",\"value\":{\"id\":\"a\"}}"
        assertReject(line("{\"elementId\":\"q\",\(meta),\(params)}"), nil)
        for bad in ["7", "null", "true", "[\"q\"]", "{\"id\":\"q\"}"] {
            assertReject(line("{\"elementId\":\(bad),\(meta),\(params)}"), .badAction)
            assertReject(line("{\"elementId\":\"q\",\"meta\":{\"onboardingId\":\(bad)},\(params)}"), .badAction)
        }
        assertReject(line("{\"elementId\":\"q\",\(meta)}"), .badAction)  // params absent
        for bad in ["null", "\"select\"", "[]", "[{\"type\":\"select\",\"value\":{\"id\":\"a\"}}]", "3"] {
            assertReject(line("{\"elementId\":\"q\",\(meta),\"params\":\(bad)}"), .badAction)
        }
        // datePicker: month and year, where present, plain integer literals.
        func date(_ value: String) -> String { line("{\"elementId\":\"q\",\(meta),\"params\":{\"type\":\"datePicker\",\"value\":\(value)}}") }
        assertReject(date("{\"day\":28,\"month\":11,\"year\":2026}"), nil)
        assertReject(date("{\"month\":null,\"year\":-5}"), nil)
        for bad in ["\"11\"", "11.0", "1.1e1", "1e1", "true", "[11]", "{}"] {
            assertReject(date("{\"day\":28,\"month\":\(bad),\"year\":2026}"), .badAction)
            assertReject(date("{\"day\":28,\"month\":11,\"year\":\(bad)}"), .badAction)
        }
        assertReject(date("[28,11,2026]"), .badAction)
        assertReject(date("null"), .badAction)
        // select: value an object, never an array of one, a string or null.
        for bad in ["[{\"id\":\"a\"}]", "\"a\"", "null", "1", "[]"] {
            assertReject(line("{\"elementId\":\"q\",\(meta),\"params\":{\"type\":\"select\",\"value\":\(bad)}}"), .badAction)
        }
        assertReject(line("{\"elementId\":\"q\",\(meta),\"params\":{\"type\":\"select\"}}"), .badAction)
        let analytics = "{\(envelope),\"event_type\":\"onboarding_analytics\",\"action\":"
        assertReject(analytics + "{\"name\":\"screen_presented\",\(meta)}}", nil)
        assertReject(analytics + "{\"name\":5,\(meta)}}", .badAction)
        // bad_timestamp outranks bad_action.
        assertReject("{\"event_id\":\"e\",\"event_type\":\"onboarding_analytics\",\"timestamp\":\"x\",\"device_id\":\"d\",\"profile_id\":\"p\"}", .badTimestamp)
        // action is never checked on other types.
        assertReject("{\(envelope),\"event_type\":\"logout\",\"action\":5}", nil)
    }

    func testExtractsDecodedFields() {
        let line = "{\"event_id\":\"e\\u0031\",\"event_type\":\"identify\",\"timestamp\":\"2026-11-28T09:15:02Z\",\"device_id\":\"d\\\"1\",\"profile_id\":\"p\",\"customer_user_id\":\"\\u00e9\"}"
        XCTAssertNil(outcome(line))
        let event = parser.event
        XCTAssertEqual(event.type, .identify)
        XCTAssertEqual(parser.withBytes(of: event.eventID) { Array($0) }, Array("e1".utf8))
        XCTAssertEqual(parser.withBytes(of: event.deviceID!) { Array($0) }, Array("d\"1".utf8))
        XCTAssertEqual(parser.withBytes(of: event.customerUserID!) { Array($0) }, Array("é".utf8))
        XCTAssertEqual(event.instant, Instant(seconds: 1_795_857_302, nanoseconds: 0))
    }

    /// Whitespace of every kind, single or in runs, around every token of a
    /// quiz answer (top level and inside `action`), and at the line's end,
    /// reads the same event as the compact line (Python's `json.dumps` puts a
    /// space after every `:` and `,`; other writers tabs or runs).
    func testWhitespaceAroundEveryTokenReadsTheSameEvent() {
        let tokens = ["{", "\"event_id\"", ":", "\"e1\"", ",", "\"event_type\"", ":", "\"onboarding_state_updated\"", ",",
                      "\"timestamp\"", ":", "1795857302123", ",", "\"device_id\"", ":", "\"d\"", ",", "\"profile_id\"", ":",
                      "\"p\"", ",", "\"action\"", ":", "{", "\"elementId\"", ":", "\"q\"", ",", "\"meta\"", ":", "{",
                      "\"onboardingId\"", ":", "\"o\"", "}", ",", "\"params\"", ":", "{", "\"type\"", ":", "\"select\"", ",",
                      "\"value\"", ":", "{", "\"id\"", ":", "\"a\"", ",", "\"value\"", ":", "\"A\"", "}", "}", "}", ",",
                      "\"extra\"", ":", "[", "1", ",", "null", ",", "true", "]", "}"]
        func read(_ line: String) -> [String]? {
            guard outcome(line) == nil else { return nil }
            let event = parser.event
            func text(_ ref: StringRef?) -> String { ref.map { parser.withBytes(of: $0) { String(decoding: $0, as: UTF8.self) } } ?? "-" }
            return [text(event.eventID), text(event.deviceID), text(event.profileID), text(event.elementID),
                    text(event.onboardingID), "\(event.answerKind)", "\(event.instant)", "\(parser.options.count)"]
        }
        let compact = read(tokens.joined())
        XCTAssertNotNil(compact)
        for gap in [" ", "\t", "\r", "  ", " \t", "\t\t ", "\r\r"] {
            XCTAssertEqual(read(tokens.joined(separator: gap)), compact, gap.debugDescription)
            XCTAssertEqual(read(gap + tokens.joined(separator: gap) + gap), compact, gap.debugDescription)
            XCTAssertEqual(read(tokens.joined() + gap), compact, gap.debugDescription)
        }
        // Not whitespace: a form feed or a no-break space is invalid JSON. A
        // line feed is whitespace to JSON, but it ends an NDJSON line, so the
        // splitter never hands one over and the scanner stops at it (a line
        // read from the start of a chunk ends there: `parseLine`).
        XCTAssertEqual(outcome(tokens.joined(separator: "\n")), .invalidJSON)
        XCTAssertEqual(outcome(tokens.joined(separator: "\r\n")), .invalidJSON)
        XCTAssertEqual(outcome(tokens.joined(separator: "\u{0C}")), .invalidJSON)
        XCTAssertEqual(outcome(tokens.joined(separator: "\u{A0}")), .invalidJSON)
    }

    /// Regression (found by the failure matrix): an escaped timestamp crashed.
    /// A line read from the start of the rest of a chunk, without its end
    /// found first (``EventParser/parseLine(atStartOf:)``), gives what the
    /// line alone gives, and its ends; or nil, and the line alone decides.
    /// Lines: a noisy export (rejects of every kind, CRLF, blank lines), the
    /// export's lines joined by runs of whitespace, and objects followed by
    /// text, by whitespace, by another object, or by nothing (the end of the
    /// text). Actions shorter than the cache's prefix end lines followed by
    /// lines that repeat them (the next line is not part of a prefix).
    func testALineReadFromTheStartOfAChunkIsTheLineAlone() {
        var lines = generateExport(GeneratorConfiguration(seed: 23, events: 3_000, days: 2, noise: 0.06, crlf: true))
            .split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { Array($0) }
        let short = "{\"event_id\":\"e\",\"event_type\":\"onboarding_analytics\",\"timestamp\":1,\"device_id\":\"d\","
            + "\"profile_id\":\"p\",\"action\":{\"name\":\"n\",\"meta\":{\"onboardingId\":\"o\",\"screenIndex\":0}}}"
        for tail in ["", " ", " \t ", "\r", "\r\r", " x", "}", ",", "{}", " {\"a\":1}", "\u{0C}"] {
            lines += Array(repeating: Array((short + tail).utf8), count: 3)
        }
        lines += [Array("  {\"a\":1}  ".utf8), Array("[1]".utf8), Array("\"x\"".utf8), [], Array("   ".utf8),
                  Array("{\"a\":\"unterminated".utf8), Array("{\"a\":".utf8)]
        var rng = SplitMix64(7)
        lines.shuffle(using: &rng)
        var text: [UInt8] = []
        for line in lines { text += line + [UInt8(ascii: "\n")] }
        text += Array(short.utf8)  // the last line has no line feed

        var fast = EventParser(), alone = EventParser(cachingActions: false)
        var start = 0, readFast = 0, linesSeen = 0
        text.withUnsafeBytes { all in
            while start < all.count {
                let rest = UnsafeRawBufferPointer(rebasing: all[start...])
                let newline = rest.firstIndex(of: 0x0A)
                let lineEnd = newline ?? rest.count
                let contentEnd = newline != nil && lineEnd > 0 && rest[lineEnd - 1] == 0x0D ? lineEnd - 1 : lineEnd
                let line = Array(rest[0..<contentEnd])
                let expected = ParseSnapshot(line, &alone)
                if let read = fast.parseLine(atStartOf: rest) {
                    readFast += 1
                    XCTAssertEqual(read.lineEnd, lineEnd, String(decoding: line, as: UTF8.self))
                    XCTAssertEqual(read.contentEnd, contentEnd, String(decoding: line, as: UTF8.self))
                    XCTAssertEqual(ParseSnapshot(read.outcome, &fast), expected, String(decoding: line, as: UTF8.self))
                } else {
                    // Not read so: blank, not an object, or an object the
                    // line alone finds invalid (unterminated, or followed
                    // by anything but whitespace).
                    if let first = line.firstIndex(where: { $0 > 0x20 }), line[first] == UInt8(ascii: "{") {
                        XCTAssertEqual(expected.reason, .invalidJSON, String(decoding: line, as: UTF8.self))
                    }
                }
                linesSeen += 1
                start += lineEnd + 1
            }
        }
        XCTAssertEqual(linesSeen, lines.count + 1)
        XCTAssertGreaterThan(readFast, linesSeen * 8 / 10)
        XCTAssertLessThan(readFast, linesSeen)
    }

    func testEscapedTimestampsAreDecodedFirst() {
        assertReject("{\"event_id\":\"e\",\"event_type\":\"x\",\"timestamp\":\"\\u0031\"}", .badTimestamp)
        assertReject("{\"event_id\":\"e\",\"event_type\":\"x\",\"timestamp\":\"2026-11-28T09:15:02\\u002E123\\u005A\"}", nil)
        XCTAssertEqual(parser.event.instant, Instant(seconds: 1_795_857_302, nanoseconds: 123_000_000))
    }

    func testAnonymousCustomerUserIDForms() {
        for cuid in ["", ",\"customer_user_id\":null", ",\"customer_user_id\":\"\""] {
            XCTAssertNil(outcome("{\(envelope),\"event_type\":\"sdk_activate\"\(cuid)}"))
            XCTAssertNil(parser.event.customerUserID)
        }
    }
}

extension EventParserTests {
    /// The envelope-key table agrees with the general matcher: every key in
    /// its plain spelling and closed by a quote, whatever bytes follow (which
    /// the table may read), and nothing that merely starts like one, goes on
    /// past it (with an escape, say), ends early, or differs in case; and
    /// random near-keys.
    func testEnvelopeKeyTableAgreesWithTheMatcher() {
        let table = EnvelopeKeyTable.shared
        func match(_ key: String, followedBy tail: String = "\":\"0123456789abcdef\"") -> Int? {
            Array((key + tail).utf8).withUnsafeBytes { bytes in
                table.match(content: bytes.baseAddress!).map { found in
                    XCTAssertEqual(found.length, key.utf8.count, key)
                    return found.slot
                }
            }
        }
        for key in EnvelopeKey.allCases {
            let name = "\(key.name)"
            XCTAssertEqual(match(name), key.rawValue, name)
            XCTAssertEqual(match(name, followedBy: "\"xxxxxxxxxxxxxxxxxxxxx"), key.rawValue, name + " (bytes after the closing quote do not count)")
            XCTAssertNil(match(name + "x"), name + "x")
            XCTAssertNil(match(name, followedBy: "\\u0041\":0000000000000000"), name + " and an escape")
            XCTAssertNil(match(name, followedBy: ":0000000000000000000"), name + " without its quote")
            XCTAssertNil(match(String(name.dropLast())), String(name.dropLast()))
            XCTAssertNil(match(name.uppercased()), name.uppercased())
        }
        for other in ["", "id", "actions", "Event_id", "app_version", "platform", "eventId", "event_idd", "customer_user_i"] {
            XCTAssertNil(match(other), other)
        }
        XCTAssertNil(match("", followedBy: String(repeating: "\u{0}", count: 20)), "zero bytes")
        // Random strings over the keys' letters, mostly near a key, against the matcher.
        var rng = SplitMix64(3)
        let letters = Array("_acdeimnoprstuvy".utf8)
        for _ in 0..<20_000 {
            var bytes: [UInt8]
            if Bool.random(using: &rng) {
                let key = EnvelopeKey.allCases.randomElement(using: &rng)!.name
                bytes = Array(UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
                let edits = Int.random(in: 0...2, using: &rng)
                for _ in 0..<edits where !bytes.isEmpty {
                    bytes[Int.random(in: 0..<bytes.count, using: &rng)] = letters.randomElement(using: &rng)!
                }
                if Int.random(in: 0..<4, using: &rng) == 0 { bytes.removeLast() }
            } else {
                bytes = (0..<Int.random(in: 0...16, using: &rng)).map { _ in letters.randomElement(using: &rng)! }
            }
            let expected = bytes.withUnsafeBytes { EnvelopeKey(matching: $0)?.rawValue }
            let padded = bytes + Array("\":0000000000000000".utf8)
            let found = padded.withUnsafeBytes { table.match(content: $0.baseAddress!) }
            XCTAssertEqual(found?.slot, expected, String(decoding: bytes, as: UTF8.self))
            if found != nil { XCTAssertEqual(found?.length, bytes.count) }
        }
    }
}
