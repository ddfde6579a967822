import EventGenerator
import XCTest
@testable import AnalyzeKit

/// Reading `action` in one pass (``ActionScan``) may change only the speed:
/// every line must parse as it does through the recorded structure
/// (``EventParser(scanningActions: false)``, the reference), and plain
/// actions must actually take the one pass.
final class ActionScanTests: XCTestCase {
    private let head = "{\"event_id\":\"e1\",\"timestamp\":\"2026-11-28T09:15:02.123Z\",\"device_id\":\"d\",\"profile_id\":\"p\","
    private let meta = "\"meta\":{\"onboardingId\":\"quiz\",\"screenClientId\":\"s\",\"screenIndex\":1,\"screensTotal\":4}"
    private let types = ["onboarding_state_updated", "onboarding_analytics", "sdk_activate"]

    /// A line with `action`, for each of `types`: both onboarding types read
    /// it (differently), other types never check it.
    private func lines(_ action: String) -> [[UInt8]] {
        types.map { Array((head + "\"event_type\":\"\($0)\",\"action\":" + action + "}").utf8) }
    }

    /// Parses `lines` both ways, without the cache (so every action is
    /// read), checking each result against the reference; returns how many
    /// actions took the one pass.
    @discardableResult
    private func assertScanEqualsTape(_ lines: [[UInt8]], file: StaticString = #filePath, line: UInt = #line) -> Int {
        var scanning = EventParser(cachingActions: false)
        var reference = EventParser(cachingActions: false, scanningActions: false)
        for bytes in lines {
            let expected = ParseSnapshot(bytes, &reference)
            XCTAssertEqual(ParseSnapshot(bytes, &scanning), expected, String(decoding: bytes, as: UTF8.self),
                           file: file, line: line)
        }
        XCTAssertEqual(reference.actionsScanned, 0, file: file, line: line)
        return scanning.actionsScanned
    }

    private func reason(_ line: [UInt8]) -> RejectReason? {
        var parser = EventParser(cachingActions: false)
        return ParseSnapshot(line, &parser).reason
    }

    func testPlainActionsAreReadInOnePass() {
        let actions = [
            "{\"elementId\":\"q\",\(meta),\"params\":{\"type\":\"select\",\"value\":{\"id\":\"a\",\"value\":\"v\",\"label\":\"Café\"}}}",
            // `value` before `type`; an element that is not an object (a bad shape).
            "{\"params\":{\"value\":[{\"id\":\"a\"},{\"id\":\"b\",\"label\":null},7],\"type\":\"multiSelect\"},\(meta),\"elementId\":\"q\"}",
            "{\"elementId\":\"q\",\(meta),\"params\":{\"type\":\"multiSelect\",\"value\":[{\"value\":\"x\",\"id\":\"a\"},{\"id\":\"b\"}]}}",
            "{\"elementId\":\"q\",\(meta),\"params\":{\"type\":\"datePicker\",\"value\":{\"day\":1,\"month\":12,\"year\":null}}}",
            "{\"elementId\":\"q\",\(meta),\"params\":{\"type\":\"datePicker\",\"value\":{\"day\":\"1\"}}}",
            // Escapes in values (not keys) are plain.
            "{\"elementId\":\"q\\u0031\",\(meta),\"params\":{\"type\":\"input\",\"value\":{\"type\":\"text\",\"value\":\"a \\\"b\\\"\"}}}",
            "{\"name\":\"screen_presented\",\(meta),\"sessionId\":\"s-1\",\"n\":-1.5e3,\"t\":true,\"z\":null}",
            "{ \"elementId\" : \"q\" , \"meta\" : { \"onboardingId\" : \"o\" } ,\t\"params\" : { \"type\" : \"select\" , \"value\" : { \"id\" : \"a\" } } }",
            "{}",
            // Scalars where the rules want objects: plain, and a bad shape.
            "{\"meta\":null,\"params\":\"x\",\"elementId\":5,\"name\":false}",
            "{\"elementId\":\"q\",\"meta\":{\"onboardingId\":\"o\",\"screenIndex\":1.0},\"params\":{\"type\":\"multiSelect\",\"value\":[]}}",
            "{\"elementId\":\"q\",\(meta),\"params\":{\"type\":\"select\",\"value\":\"a\"}}",
            // Keys read at one level are other keys at another.
            "{\"name\":\"n\",\"type\":\"t\",\"id\":\"i\",\(meta),\"params\":{\"type\":\"select\",\"label\":\"l\",\"value\":{\"id\":\"a\",\"type\":\"x\"}}}",
            // Up to four other keys per object, compared for repeats.
            "{\"a\":1,\"b\":2,\"c\":3,\"d\":4,\"name\":\"n\",\(meta)}",
            // Containers under keys the SPEC does not read, at any level (the
            // independent exporter's `meta.variation`, `image`, `params.extra`).
            "{\"name\":\"n\",\(meta),\"context\":{\"a\":[1,2]}}",
            "{\"elementId\":\"q\",\"meta\":{\"onboardingId\":\"quiz\",\"variation\":{\"id\":\"v2\",\"weights\":[0.5,0.5]},\"screenIndex\":1},"
                + "\"params\":{\"type\":\"select\",\"value\":{\"id\":\"a\",\"image\":{\"url\":\"u\"},\"label\":\"L\"}}}",
            "{\"elementId\":\"q\",\(meta),\"params\":{\"type\":\"multiSelect\",\"extra\":[[],{},[{\"k\":[null]}],\"s\"],"
                + "\"value\":[{\"id\":\"a\",\"image\":{\"url\":\"u\",\"size\":[1,2]}},{\"id\":\"b\",\"x\":[]}]}}",
            // Keys read elsewhere are other keys inside another key's container.
            "{\"name\":\"n\",\(meta),\"x\":{\"name\":{\"meta\":1},\"id\":\"i\",\"params\":[{\"type\":\"t\"}]}}",
            // Eight containers deep under another key: the most read in one pass.
            "{\"name\":\"n\",\(meta),\"x\":[[[[{\"y\":[[[1]]]}]]]]}",
            // Keys the SPEC reads, spelled with escapes.
            "{\"element\\u0049d\":\"q\",\(meta),\"params\":{\"type\":\"select\",\"va\\u006Cue\":{\"la\\u0062el\":\"L\",\"id\":\"a\"}}}",
            "{\"\\u006e\\u0061\\u006d\\u0065\":\"n\",\"meta\":{\"onboardingI\\u0064\":\"o\"}}",
            " { \"name\" : \"n\" , \"x\" : { \"a\" : [ 1 , { } ] , \"b\" : [ ] } , \(meta) } ",
        ]
        let all = actions.flatMap(lines)
        XCTAssertEqual(assertScanEqualsTape(all), all.count)
        XCTAssertNil(reason(lines(actions[0])[0]))
        XCTAssertEqual(reason(lines(actions[1])[0]), .badAction)
        XCTAssertEqual(reason(lines(actions[4])[0]), .badAction)
    }

    func testUnusualActionsAreReadTheGeneralWay() {
        let actions = [
            "{\"\\u0078\":1,\"name\":\"n\",\(meta)}",                          // an escaped key the SPEC does not read
            "{\"name\":\"n\",\"name\":\"m\",\(meta)}",                          // a repeated key the SPEC reads
            "{\"x\":1,\"name\":\"n\",\"x\":2,\(meta)}",                          // a repeated other key
            "{\"name\":\"n\",\(meta),\"params\":{\"type\":\"multiSelect\",\"value\":[{\"id\":\"a\",\"id\":\"b\"}]}}",
            "{\"name\":\"n\",\(meta),\"context\":{\"a\":{\"b\":[1,{\"c\":2,\"c\":3}]}}}",  // a repeat deep in another key
            "{\"name\":\"n\",\(meta),\"x\":{\"a\":1,\"a\":2}}",                 // a repeat in another key's object
            "{\"name\":{\"x\":1},\(meta)}",                                     // a container where a scalar is read
            "{\"name\":\"n\",\"meta\":[1],\"params\":[]}",                      // arrays where objects are read
            "{\"elementId\":\"q\",\(meta),\"params\":{\"type\":\"multiSelect\",\"value\":[[1]]}}",
            "{\"a\":1,\"b\":2,\"c\":3,\"d\":4,\"e\":5,\"name\":\"n\",\(meta)}",  // more other keys than compared
            "{\"name\":\"n\",\(meta),}",                                        // invalid JSON from here on
            "{\"name\":\"n\"\(meta)}",
            "{\"name\":\"n\",\(meta),\"x\":tru}",
            "{\"name\":\"n\",\(meta),\"x\":\"\\uD800\"}",
            "{\"name\":\"n\",\(meta),\"params\":{\"value\":[1,]}}",
            "{\"name\":\"n\",\(meta),\"x\":01}",
            "{\"name\":\"n\",\(meta),\"x\":[[[[{\"y\":[[[[1]]]]}]]]]}",       // nine containers deep under another key
            "{\"name\":\"n\",\(meta),\"x\":{\"a\":1,\"b\":2,\"c\":3,\"d\":4,\"e\":5}}",  // five keys in another key's object
            "{\"name\":\"n\",\(meta),\"x\":{\"\\u0061\":1}}",                 // an escaped key there
            "{\"name\":\"n\",\(meta),\"x\":{\"a\":[1,]}}",                      // invalid JSON there
            "{\"name\":\"n\",\(meta),\"x\":[{\"a\":1}{}]}",
            "{\"name\":\"n\",\"na\\u006de\":\"m\",\(meta)}",                 // a key read, twice, one escaped
            "{\"name\":\"n\",\(meta),\"params\":{\"t\\u0079pe\":\"select\",\"type\":\"select\"}}",
            "{\"nam\\u00e9\":\"n\",\(meta)}",                                  // escapes of other letters
            "{\"na\\nme\":\"n\",\(meta)}",
        ]
        let all = actions.flatMap(lines)
        XCTAssertEqual(assertScanEqualsTape(all), 0)
        // The general way still decides as the SPEC says.
        XCTAssertEqual(reason(lines(actions[1])[1]), .invalidJSON)
        XCTAssertNil(reason(lines(actions[1])[2]))
        XCTAssertEqual(reason(lines(actions[4])[0]), .invalidJSON)
        XCTAssertEqual(reason(lines(actions[5])[1]), .invalidJSON)
        XCTAssertNil(reason(lines(actions[5])[2]))  // not read on other types
        XCTAssertEqual(reason(lines(actions[11])[2]), .invalidJSON)
        XCTAssertEqual(reason(lines(actions[16])[0]), .badAction)  // deep, valid: no elementId
        XCTAssertNil(reason(lines(actions[17])[1]))
        XCTAssertEqual(reason(lines(actions[19])[1]), .invalidJSON)
        XCTAssertEqual(reason(lines(actions[21])[1]), .invalidJSON)
        XCTAssertEqual(reason(lines(actions[22])[0]), .invalidJSON)
        XCTAssertEqual(reason(lines(actions[23])[1]), .badAction)  // not `name`
    }

    /// An escape in a key is one letter of a key the SPEC reads only when it
    /// spells that letter: `\u0165` (ť) and `\u0161` (š) are not `e` and `a`,
    /// whose bytes are their low bytes, so `ťlementId` and `nšme` are other
    /// keys and the actions lack `elementId` and `name` (regression, mutation
    /// testing: with the one pass's test for ASCII escapes dropped, both were
    /// read as the keys their low bytes spell, and the lines accepted).
    func testAnEscapeAboveASCIIInAKeyIsNotTheLetterOfItsLowByte() {
        let state = "{\"\\u0165lementId\":\"q\",\(meta),\"params\":{\"type\":\"select\",\"value\":{\"id\":\"a\"}}}"
        let analytics = "{\"n\\u0161me\":\"screen_presented\",\(meta)}"
        let all = [state, analytics].flatMap(lines)
        XCTAssertEqual(assertScanEqualsTape(all), 0)
        XCTAssertEqual(reason(lines(state)[0]), .badAction)
        XCTAssertEqual(reason(lines(analytics)[1]), .badAction)
        // Spelled as the letters themselves, the same escapes are the keys.
        XCTAssertNil(reason(lines(state.replacingOccurrences(of: "\\u0165", with: "\\u0065"))[0]))
        XCTAssertNil(reason(lines(analytics.replacingOccurrences(of: "\\u0161", with: "\\u0061"))[1]))
    }

    /// Each action is read alone: a `meta` field of the line before (here a
    /// `screensTotal` that is not an integer, a bad shape) is not carried
    /// into the next action, which lacks it, in the one pass or the general
    /// way (regression, mutation testing: with `screensTotal` left out of the
    /// facts' reset, the second line was rejected as `bad_action` too).
    func testAFieldOfTheActionBeforeIsNotCarriedIntoTheNext() {
        let badTotal = "{\"name\":\"screen_presented\",\"meta\":{\"onboardingId\":\"quiz\",\"screensTotal\":\"4\"}}"
        let noTotal = "{\"name\":\"screen_presented\",\"meta\":{\"onboardingId\":\"quiz\",\"screenIndex\":1}}"
        for scanningActions in [true, false] {
            var parser = EventParser(cachingActions: false, scanningActions: scanningActions)
            let cases: [(String, RejectReason?)] = [(badTotal, .badAction), (noTotal, nil), (badTotal, .badAction), (noTotal, nil)]
            for (action, expected) in cases {
                let line = lines(action)[1]
                XCTAssertEqual(ParseSnapshot(line, &parser).reason, expected, "\(action), scanning \(scanningActions)")
            }
        }
    }

    /// Seeded property test: generated exports (noise included) parse the
    /// same both ways, and most of their actions take the one pass.
    func testGeneratedExportsParseTheSameBothWays() {
        for seed: UInt64 in [5, 23] {
            let lines = nonBlankLines(GeneratorConfiguration(seed: seed, events: 4_000, days: 3, noise: 0.05))
            let marker = Array("\"action\":{".utf8)
            let actions = lines.filter { $0.firstRange(of: marker) != nil }
            let scanned = assertScanEqualsTape(lines)
            XCTAssertGreaterThan(scanned, actions.count * 9 / 10, "seed \(seed)")
        }
    }

    /// Seeded property test: generated onboarding lines with one byte of
    /// their `action` deleted, replaced or added (mostly JSON punctuation),
    /// so that many are invalid, repeat keys or change shape, parse the same
    /// both ways.
    func testDamagedActionsParseTheSameBothWays() {
        let lines = nonBlankLines(GeneratorConfiguration(seed: 11, events: 3_000, days: 2, noise: 0))
        let marker = Array("\"action\":{".utf8)
        let punctuation = Array("{}[]:,\"\\ 0-1.etnu".utf8)
        var random = SplitMix64(0xac71_0a5c)
        var damaged: [[UInt8]] = []
        for line in lines {
            guard let at = line.firstRange(of: marker)?.upperBound else { continue }
            for _ in 0..<3 {
                var copy = line
                let position = at - 1 + Int(random.next() % UInt64(copy.count - at))
                let byte = punctuation[Int(random.next() % UInt64(punctuation.count))]
                switch random.next() % 3 {
                case 0: copy.remove(at: position)
                case 1: copy[position] = byte
                default: copy.insert(byte, at: position)
                }
                damaged.append(copy)
            }
        }
        XCTAssertGreaterThan(damaged.count, 1_000)
        let scanned = assertScanEqualsTape(damaged)
        // Both ways are exercised.
        XCTAssertGreaterThan(scanned, damaged.count / 10)
        XCTAssertLessThan(scanned, damaged.count * 9 / 10)
    }

    private func nonBlankLines(_ configuration: GeneratorConfiguration) -> [[UInt8]] {
        generateExport(configuration).split(separator: UInt8(ascii: "\n")).map { line -> [UInt8] in
            line.last == 0x0D ? Array(line.dropLast()) : Array(line)
        }.filter { !ChunkReader.isBlank($0.withUnsafeBytes { $0 }) }
    }
}
