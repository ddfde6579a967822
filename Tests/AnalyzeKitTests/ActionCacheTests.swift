import CSupport
import EventGenerator
import XCTest
@testable import AnalyzeKit

/// The `action` cache may change only the speed of parsing: every reading it
/// returns must equal a fresh one (``EventParser(cachingActions: false)``).
final class ActionCacheTests: XCTestCase {
    private let head = "{\"event_id\":\"e1\",\"timestamp\":\"2026-11-28T09:15:02.123Z\",\"device_id\":\"d\",\"profile_id\":\"p\","
    private let meta = "\"meta\":{\"onboardingId\":\"quiz_ja_2026\",\"screenClientId\":\"drinks_screen\",\"screenIndex\":1,\"screensTotal\":4}"

    private func stateUpdate(_ params: String, after: String = "") -> [UInt8] {
        Array((head + "\"event_type\":\"onboarding_state_updated\",\"action\":{\"elementId\":\"favorite_drinks\","
               + meta + ",\"params\":" + params + "}" + after + "}").utf8)
    }

    private let select = "{\"type\":\"select\",\"value\":{\"id\":\"cafe\",\"value\":\"cafe_nfc\",\"label\":\"Café au lait\"}}"

    /// Parses `lines` in order with one caching parser and checks each result
    /// against a fresh, non-caching parse; returns the cache hits.
    @discardableResult
    private func assertCachedEqualsFresh(_ lines: [[UInt8]], file: StaticString = #filePath, line: UInt = #line) -> Int {
        var cached = EventParser()
        for bytes in lines {
            var fresh = EventParser(cachingActions: false)
            let expected = ParseSnapshot(bytes, &fresh)
            XCTAssertEqual(ParseSnapshot(bytes, &cached), expected, String(decoding: bytes, as: UTF8.self), file: file, line: line)
        }
        return cached.actionCacheHits
    }

    func testTheSameActionIsFoundAndReadTheSame() {
        let line = stateUpdate(select)
        // Read in full twice (remembered on its second reading), then found.
        XCTAssertEqual(assertCachedEqualsFresh([line, line, line, line]), 2)
        var parser = EventParser()
        let first = ParseSnapshot(line, &parser), second = ParseSnapshot(line, &parser)
        XCTAssertNil(second.reason)
        XCTAssertEqual(second.strings[1], Array("favorite_drinks".utf8))
        XCTAssertEqual(second.strings[4], Array("cafe".utf8))
        XCTAssertEqual(first, second)
    }

    func testFoundActionAtAnotherOffsetAndWithOtherKeysAfterIt() {
        // Same action bytes; other envelope lengths before, other keys after:
        // the offsets of its fields move with it.
        let base = stateUpdate(select)
        let longerID = Array(String(decoding: base, as: UTF8.self).replacingOccurrences(of: "\"e1\"", with: "\"event-0042\"").utf8)
        let trailing = stateUpdate(select, after: ",\"platform\":\"ios\",\"locale\":\"ja_JP\"")
        XCTAssertEqual(assertCachedEqualsFresh([base, base, longerID, trailing]), 2)
    }

    func testActionReadForOneTypeIsReadAgainForTheOther() {
        // The analytics type reads `name` and `meta`, the state type `elementId`,
        // `meta` and `params`: one cached object, two readings.
        let action = "{\"name\":\"screen_presented\",\"elementId\":\"favorite_drinks\"," + meta + ",\"params\":" + select + "}"
        let state = Array((head + "\"event_type\":\"onboarding_state_updated\",\"action\":" + action + "}").utf8)
        let analytics = Array((head + "\"event_type\":\"onboarding_analytics\",\"action\":" + action + "}").utf8)
        // Remembered at its second reading (as analytics); the first state
        // update found there is read again for its own type.
        XCTAssertEqual(assertCachedEqualsFresh([state, analytics, state, analytics, state]), 3)
    }

    /// The prefix hash reads every one of its 96 bytes (a lane dropped or a
    /// word skipped would leave objects that differ there in one way's
    /// compare), and spreads objects over the sets.
    func testPrefixHashReadsEveryByteAndSpreadsOverTheSets() {
        let base = Array(("{\"elementId\":\"favorite_drinks\"," + meta).utf8.prefix(ActionCache.prefixLength))
        XCTAssertEqual(base.count, ActionCache.prefixLength)
        let baseHash = base.withUnsafeBytes { ActionCache.prefixHash($0.baseAddress!) }
        var hashes: Set<UInt64> = [baseHash]
        for k in 0..<ActionCache.prefixLength {
            var changed = base
            changed[k] ^= 0x01
            hashes.insert(changed.withUnsafeBytes { ActionCache.prefixHash($0.baseAddress!) })
        }
        XCTAssertEqual(hashes.count, ActionCache.prefixLength + 1, "a byte of the prefix does not change its hash")

        var random = SplitMix64(20)
        var sets = Set<Int>()
        for _ in 0..<2048 {
            let bytes = (0..<ActionCache.prefixLength).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            sets.insert(ActionCache.set(of: bytes.withUnsafeBytes { ActionCache.prefixHash($0.baseAddress!) }))
        }
        // 2 048 objects over 256 sets leave about 0.1 of them empty.
        XCTAssertGreaterThanOrEqual(sets.count, 250)
    }

    /// The admission hash reads every byte after the prefix, whatever the
    /// object's length (an object read once must not pass for another one
    /// that shares its first 96 bytes), and its length.
    func testAdmissionHashReadsEveryByteAfterThePrefix() {
        var random = SplitMix64(21)
        for length in [97, 100, 104, 111, 128, 129, 150, 160, 200, 255, 512] {
            let object = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            func hash(_ bytes: [UInt8]) -> UInt64 {
                bytes.withUnsafeBytes { ActionCache.admissionHash($0, prefixHash: 42) }
            }
            var hashes: Set<UInt64> = [hash(object)]
            for k in ActionCache.prefixLength..<length {
                var changed = object
                changed[k] ^= 0x01
                hashes.insert(hash(changed))
            }
            XCTAssertEqual(hashes.count, length - ActionCache.prefixLength + 1, "length \(length)")
            XCTAssertNotEqual(hash(object), hash(object + [0x20]), "length \(length)")
        }
    }

    /// Answers whose `action` the cache holds are recorded from the answer
    /// recorded last for that way and fill (``PartialAggregate``'s memo), so
    /// they must count exactly as answers read afresh — also while the ways
    /// of one set are refilled again and again. Twenty answers whose objects
    /// fall in one set (of 8 ways), each met three times a round (admitted at
    /// the second reading, found at the third); the reference is the same
    /// answers with a key the SPEC ignores, unique to each event, inside the
    /// option, so that no object repeats and nothing is cached.
    func testAnswersFromCachedActionsCountAsAnswersReadAfresh() throws {
        /// Answer `k`, option `o<k>`; its label is spelled with an escape
        /// for an odd `k` (its decoded bytes are kept with the way). A
        /// negative `k` is given a key unique to each event, so it is never
        /// cached: read afresh after a found one.
        func action(_ k: Int, unique: Int? = nil) -> String {
            let extra = (k < 0 ? Int.random(in: 0..<Int.max) : unique).map { ",\"n\":\($0)" } ?? ""
            let label = k % 2 != 0 ? "\\u004Cabel \(k)" : "Label \(k)"
            return "{\"elementId\":\"goal\",\"params\":{\"type\":\"select\",\"value\":{\"id\":\"o\(k)\",\"value\":\"v\(k)\","
                + "\"label\":\"\(label)\"\(extra)}},\"meta\":{\"onboardingId\":\"onb\",\"screenClientId\":\"s1\","
                + "\"screenIndex\":1,\"screensTotal\":4}}"
        }
        func set(_ k: Int) -> Int {
            let bytes = Array(action(k).utf8)
            precondition(bytes.count >= ActionCache.prefixLength)
            return ActionCache.set(of: bytes.withUnsafeBytes { ActionCache.prefixHash($0.baseAddress!) })
        }
        let target = set(0)
        let sameSet = (0..<200_000).lazy.filter { set($0) == target }.prefix(20).map { $0 }
        XCTAssertEqual(sameSet.count, 20)
        var rng = SplitMix64(7)
        var picks: [Int] = []
        for _ in 0..<6 {
            // After each found one, an answer read afresh: nothing of the
            // found one may carry over to it.
            for k in sameSet.shuffled(using: &rng) { picks += [k, k, k, -k - 1] }
        }
        func lines(unique: Bool) -> [String] {
            picks.enumerated().map { i, k in
                event("e\(i)", "onboarding_state_updated", "2026-11-01T00:00:00.\(100_000 + i)Z",
                      device: "d\(i)", profile: "p\(i % 97)", action: action(k, unique: unique ? i : nil))
            }
        }
        for threads in [1, 2] {
            let cached = try analyze(lines: lines(unique: false), threads: threads).quizText
            XCTAssertEqual(cached, try analyze(lines: lines(unique: true), threads: threads).quizText)
            XCTAssertEqual(cached.split(separator: "\n").count, 41)  // the header and 20 options twice
        }
    }

    /// A way refilled with another object forgets the readings of the one
    /// it held: object A, read as analytics, is evicted by B, remembered as a
    /// state update; B found again as an analytics event must be read afresh
    /// (it has no `name`: bad_action), not given A's analytics reading
    /// (regression, mutation testing: a refilled way that kept its old
    /// `Way` accepted the line with A's reading).
    func testARefilledWayForgetsTheReadingsOfItsFormerObject() {
        func analyticsAction(_ k: Int) -> String {
            "{\"name\":\"screen_presented\",\"meta\":{\"onboardingId\":\"onb\",\"screenClientId\":\"screen-\(k)-padding-padding-padding\"}}"
        }
        func stateAction(_ k: Int) -> String {
            "{\"elementId\":\"goal\",\"meta\":{\"onboardingId\":\"onb\",\"screenClientId\":\"screen-\(k)-padding-padding-padding\"},"
                + "\"params\":{\"type\":\"select\",\"value\":{\"id\":\"x\"}}}"
        }
        func set(_ action: String) -> Int {
            let bytes = Array(action.utf8)
            precondition(bytes.count >= ActionCache.prefixLength)
            return ActionCache.set(of: bytes.withUnsafeBytes { ActionCache.prefixHash($0.baseAddress!) })
        }
        let target = set(analyticsAction(0))
        // Seven more analytics objects and one state object in A's set: A takes
        // the set's first way, the seven fill it and are each found once (so
        // A, never found, is the least hit), then B replaces A.
        let others = (1..<200_000).lazy.filter { set(analyticsAction($0)) == target }.prefix(ActionCache.ways - 1).map { $0 }
        let b = (0..<200_000).first { set(stateAction($0)) == target }!
        XCTAssertEqual(others.count, ActionCache.ways - 1)
        var actions: [(String, String)] = Array(repeating: ("onboarding_analytics", analyticsAction(0)), count: 2)
        for k in others { actions += Array(repeating: ("onboarding_analytics", analyticsAction(k)), count: 3) }
        actions += Array(repeating: ("onboarding_state_updated", stateAction(b)), count: 2)
        actions.append(("onboarding_analytics", stateAction(b)))
        let lines = actions.enumerated().map { i, pair in
            Array(event("e\(i)", pair.0, "2026-11-28T09:15:02Z", device: "d", profile: "p", action: pair.1).utf8)
        }
        assertCachedEqualsFresh(lines)
        var parser = EventParser()
        for line in lines.dropLast() { XCTAssertNil(ParseSnapshot(line, &parser).reason) }
        XCTAssertEqual(ParseSnapshot(lines.last!, &parser).reason, .badAction)
    }

    func testSharedPrefixIsNotTheSameObject() {
        // The first 96 bytes agree; the options differ after them.
        let a = stateUpdate(select)
        let b = stateUpdate(select.replacingOccurrences(of: "Café au lait", with: "Café crème"))
        let multi = stateUpdate("{\"type\":\"multiSelect\",\"value\":[{\"id\":\"tea\",\"label\":\"Tea\"},{\"id\":\"tea\"}]}")
        XCTAssertEqual(assertCachedEqualsFresh([a, b, multi, a, b, multi, a, b, multi]), 3)
    }

    func testAnActionMetOnceIsNotRemembered() {
        // Actions met once (a typed answer, an id unique to an event) are read
        // in full and never copied in, so they cannot evict one that recurs.
        let recurring = stateUpdate(select)
        var lines: [[UInt8]] = []
        for k in 0..<50 {
            lines.append(stateUpdate(select.replacingOccurrences(of: "Café au lait", with: "Café no \(k)")))
            lines.append(recurring)
        }
        // The recurring one is read twice, then found 48 times; no other is found.
        XCTAssertEqual(assertCachedEqualsFresh(lines), 48)
        // Met a second time, one of the others is remembered, and found the third.
        XCTAssertEqual(assertCachedEqualsFresh(lines + [lines[0], lines[0]]), 49)
    }

    func testLookupsPauseWhereAlmostNothingIsFoundThenResume() {
        // A sample's worth of actions met once each: none found, so lookups pause.
        let unique = (0..<ActionCache.sampleSize).map {
            stateUpdate(select.replacingOccurrences(of: "Café au lait", with: "Café no \($0)"))
        }
        var parser = EventParser()
        for line in unique { _ = ParseSnapshot(line, &parser) }
        XCTAssertEqual(parser.actionCacheHits, 0)
        XCTAssertEqual(parser.actionCacheLookupsToSkip, ActionCache.lookupsSkippedAfterAPoorSample)

        // While paused, a recurring action is read afresh every time, and the same.
        let recurring = stateUpdate(select)
        var fresh = EventParser(cachingActions: false)
        let expected = ParseSnapshot(recurring, &fresh)
        for _ in 0..<ActionCache.lookupsSkippedAfterAPoorSample {
            XCTAssertEqual(ParseSnapshot(recurring, &parser), expected)
        }
        XCTAssertEqual(parser.actionCacheHits, 0)
        XCTAssertEqual(parser.actionCacheLookupsToSkip, 0)

        // Then lookups resume: read twice (remembered at its second reading), then found.
        for _ in 0..<4 { XCTAssertEqual(ParseSnapshot(recurring, &parser), expected) }
        XCTAssertEqual(parser.actionCacheHits, 2)
    }

    func testASampleThatFindsOneActionIn32KeepsLookingUp() {
        // 32 hits in a sample of 1 024 lookups is enough to go on.
        let recurring = stateUpdate(select)
        var lines = [recurring, recurring]  // read twice: remembered, not yet found
        for k in 0..<(ActionCache.sampleSize - 2 - ActionCache.minimumHitsPerSample) {
            lines.append(stateUpdate(select.replacingOccurrences(of: "Café au lait", with: "Café no \(k)")))
        }
        lines += Array(repeating: recurring, count: ActionCache.minimumHitsPerSample)
        var parser = EventParser()
        for line in lines { _ = ParseSnapshot(line, &parser) }
        XCTAssertEqual(parser.actionCacheHits, ActionCache.minimumHitsPerSample)
        XCTAssertEqual(parser.actionCacheLookupsToSkip, 0)
        _ = ParseSnapshot(recurring, &parser)
        XCTAssertEqual(parser.actionCacheHits, ActionCache.minimumHitsPerSample + 1)
    }

    func testDamagedCopiesOfACachedActionAreStillRejected() {
        let good = stateUpdate(select)
        let text = String(decoding: good, as: UTF8.self)
        let cut = Array(text.dropLast(3).utf8)                     // the action's closing braces gone
        let repeated = stateUpdate(select, after: ",\"action\":{}")  // a second `action` key
        let badShape = stateUpdate("{\"type\":\"select\",\"value\":{\"id\":7,\"value\":\"cafe_nfc\",\"label\":\"Café au lait\"}}")
        // `good` is remembered at its second reading, so every damaged copy
        // after it meets the cached object.
        XCTAssertGreaterThan(assertCachedEqualsFresh([good, good, cut, good, repeated, good, badShape, good]), 0)
        var parser = EventParser()
        _ = ParseSnapshot(good, &parser)
        _ = ParseSnapshot(good, &parser)
        XCTAssertEqual(ParseSnapshot(cut, &parser).reason, .invalidJSON)
        XCTAssertEqual(ParseSnapshot(repeated, &parser).reason, .invalidJSON)
        XCTAssertEqual(ParseSnapshot(badShape, &parser).reason, .badAction)
        let hits = parser.actionCacheHits
        XCTAssertNil(ParseSnapshot(good, &parser).reason)
        XCTAssertEqual(parser.actionCacheHits, hits + 1, "the action stayed cached through its damaged copies")
    }

    func testWhatFollowsACachedObjectStillDecidesTheLine() {
        // A hit ends the `action` value; the rest of the line is still read,
        // so text after a cached object rejects the line as it would uncached.
        let good = stateUpdate(select)
        let open = String(decoding: good.dropLast(), as: UTF8.self)   // the line without its final `}`
        let tails: [(String, RejectReason?)] = [
            ("}}", .invalidJSON), (",}", .invalidJSON), (" x}", .invalidJSON), ("]}", .invalidJSON),
            ("", .invalidJSON), ("\u{01}}", .invalidJSON), ("}\u{FF}", .invalidJSON),
            (",\"t\":\"\\ud800\"}", .invalidJSON),      // a lone surrogate in a later value
            (",\"event_id\":\"e2\"}", .invalidJSON),         // a repeated envelope key
            (",\"extra\":[1,{\"a\":null}]}", nil), ("  \r}", nil), ("\t}", nil),
        ]
        var lines = [good, good]
        for (tail, _) in tails { lines += [Array((open + tail).utf8), good] }
        XCTAssertGreaterThanOrEqual(assertCachedEqualsFresh(lines), tails.count)
        var parser = EventParser()
        _ = ParseSnapshot(good, &parser)
        _ = ParseSnapshot(good, &parser)
        for (tail, reason) in tails {
            let hits = parser.actionCacheHits
            XCTAssertEqual(ParseSnapshot(Array((open + tail).utf8), &parser).reason, reason, tail.debugDescription)
            XCTAssertEqual(parser.actionCacheHits, hits + 1, "the object was found before \(tail.debugDescription)")
        }
    }

    func testEscapedFieldsAreFoundAndDecodedTheSame() {
        // Decoded strings live in the parser's arena, not in the line: the
        // way keeps their bytes, and a hit copies them to the arena.
        let line = stateUpdate("{\"type\":\"select\",\"value\":{\"id\":\"caf\\u00e9\",\"value\":\"v\",\"label\":\"lait \\\"chaud\\\"\"}}")
        XCTAssertEqual(assertCachedEqualsFresh([line, line, line, line]), 2)
        var parser = EventParser()
        for _ in 0..<3 { _ = ParseSnapshot(line, &parser) }
        let found = ParseSnapshot(line, &parser)
        XCTAssertEqual(parser.actionCacheHits, 2)
        XCTAssertEqual(found.strings[4], Array("café".utf8))
        XCTAssertEqual(found.strings[6], Array("lait \"chaud\"".utf8))

        // Both onboarding types read the same escaped `onboardingId`: each
        // reading keeps its own decoded copy. Many decoded bytes (more than
        // the way keeps) and the object is read afresh every time, rightly.
        let escapedMeta = meta.replacingOccurrences(of: "quiz_ja_2026", with: "\\u30AF\\u30A4\\u30BA")
        let action = "{\"name\":\"screen_presented\",\"elementId\":\"e\\u0031\"," + escapedMeta + ",\"params\":" + select + "}"
        let state = Array((head + "\"event_type\":\"onboarding_state_updated\",\"action\":" + action + "}").utf8)
        let analytics = Array((head + "\"event_type\":\"onboarding_analytics\",\"action\":" + action + "}").utf8)
        XCTAssertEqual(assertCachedEqualsFresh([state, analytics, state, analytics, state, analytics]), 4)
        // (The label decodes to 256 bytes, the id to one more. The same
        // object with the id spelled plainly, as long, is remembered.)
        let long = String(repeating: "x", count: ActionCache.maxDecodedBytes - 1) + "\\\""
        let tooMuch = "{\"type\":\"select\",\"value\":{\"id\":\"\\u0061\",\"value\":\"v\",\"label\":\"\(long)\"}}"
        XCTAssertEqual(assertCachedEqualsFresh(Array(repeating: stateUpdate(tooMuch), count: 3)), 0)
        let justFits = tooMuch.replacingOccurrences(of: "\\u0061", with: "abcdef")
        XCTAssertEqual(assertCachedEqualsFresh(Array(repeating: stateUpdate(justFits), count: 3)), 1)
    }

    /// Empty strings are present, not absent, when found in the cache: an
    /// empty `elementId`, `onboardingId`, `params.type` or option field reads
    /// as `""` (regression, mutation testing: a way's span at offset 0, which
    /// an empty string is kept as, was read back as an absent field).
    func testEmptyStringsAreFoundAsEmptyNotAbsent() {
        let empty = "{\"elementId\":\"\",\"meta\":{\"onboardingId\":\"\",\"screenClientId\":\"padding-padding-padding-padding\"},"
            + "\"params\":{\"type\":\"select\",\"value\":{\"id\":\"\",\"value\":\"\",\"label\":\"\"}}}"
        let line = Array(event("e1", "onboarding_state_updated", "2026-11-28T09:15:02Z", device: "d", profile: "p", action: empty).utf8)
        XCTAssertEqual(assertCachedEqualsFresh([line, line, line]), 1)
        var parser = EventParser()
        for _ in 0..<2 { XCTAssertNil(ParseSnapshot(line, &parser).reason) }
        let found = ParseSnapshot(line, &parser)
        XCTAssertEqual(parser.actionCacheHits, 1)
        XCTAssertNil(found.reason)
        XCTAssertEqual(found.strings, [[], [], nil, Array("select".utf8), [], [], []])
    }

    /// A line parsed where it stands is measured after its parse, so a line
    /// too long for `--max-line-bytes` may have its `action` remembered; the
    /// lines after it that find that object count as if it had never been.
    func testActionsOfLinesTooLongToCountFindTheSameAnswers() throws {
        let action = "{\"elementId\":\"q\",\"meta\":{\"onboardingId\":\"o\",\"screenIndex\":0},"
            + "\"params\":{\"type\":\"select\",\"value\":{\"id\":\"a\",\"value\":\"A\",\"label\":\"Alpha\"}}}"
        func line(_ id: String, _ profile: String, padded: Bool) -> String {
            let text = event(id, "onboarding_state_updated", "2026-11-01T00:00:0\(profile.count)Z", profile: profile, action: action)
            return padded ? String(text.dropLast()) + ",\"pad\":\"" + String(repeating: "x", count: 200) + "\"}" : text
        }
        let counted = [line("g1", "p1", padded: false), line("g2", "p22", padded: false)]
        let limit = counted.map(\.utf8.count).max()!
        let tooLong = (1...3).map { line("l\($0)", "p\($0)", padded: true) }
        let result = try analyze(lines: tooLong + counted, threads: 1, maxLineBytes: limit)
        XCTAssertEqual(result.quality("lines"), "5")
        XCTAssertEqual(result.quality("events"), "2")
        XCTAssertEqual(result.rejects.map(\.reason), [.lineTooLong, .lineTooLong, .lineTooLong])
        XCTAssertEqual(result.quizText, """
            onboarding_id,element_id,question_type,option_id,option_value,option_label,respondents,share,selections
            o,q,select,a,A,Alpha,2,1.0000,2

            """)
        let alone = try analyze(lines: counted, threads: 1, maxLineBytes: limit)
        XCTAssertEqual(result.quizText, alone.quizText)
        XCTAssertEqual(result.installsText, alone.installsText)
        // The parser does remember the object from the lines too long to count.
        var parser = EventParser()
        for text in tooLong + counted {
            let bytes = Array((text + "\n").utf8)
            _ = bytes.withUnsafeBytes { parser.parseLine(atStartOf: $0) }
        }
        XCTAssertEqual(parser.actionCacheHits, 3)
    }

    /// Seeded property test: a generated export (noise included) parses the
    /// same, line by line, with and without the cache, and the cache is used.
    func testGeneratedExportParsesTheSameWithAndWithoutTheCache() {
        for seed: UInt64 in [3, 17] {
            let export = generateExport(GeneratorConfiguration(seed: seed, events: 4_000, days: 3, noise: 0.05))
            let lines = export.split(separator: UInt8(ascii: "\n")).map { line -> [UInt8] in
                line.last == 0x0D ? Array(line.dropLast()) : Array(line)
            }
            let hits = assertCachedEqualsFresh(lines.filter { !ChunkReader.isBlank($0.withUnsafeBytes { $0 }) })
            XCTAssertGreaterThan(hits, lines.count / 10, "seed \(seed)")
        }
    }

    /// The prefix's line-feed test (SSE2) agrees with `memchr` for a line
    /// feed at each of the 96 places, or none, among bytes that differ from
    /// it by one bit; the prefix is that long.
    func testLineFeedInThePrefixIsFound() {
        XCTAssertEqual(ActionCache.prefixLength, 96)
        var bytes = [UInt8](repeating: 0x0B, count: 96)
        for k in 0..<96 { bytes[k] = [0x0B, 0x08, 0x8A, 0x1A, 0x00][k % 5] }
        XCTAssertEqual(bytes.withUnsafeBytes { analyze_has_line_feed96($0.baseAddress!) }, 0)
        for k in 0..<96 {
            var withLF = bytes
            withLF[k] = 0x0A
            XCTAssertEqual(withLF.withUnsafeBytes { analyze_has_line_feed96($0.baseAddress!) }, 1, "\(k)")
        }
    }

}
