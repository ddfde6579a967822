import EventGenerator
import XCTest
@testable import AnalyzeKit

/// SPEC §7: the same bytes give the same outputs whatever the thread count;
/// installs, switches and quiz answers depend only on the set of kept events.
final class DeterminismTests: XCTestCase {
    private static let configuration = GeneratorConfiguration(seed: 11, events: 6_000, days: 9, noise: 0.04, crlf: true)
    private static let (export, report) = generateExportWithReport(configuration)

    private func run(_ paths: [String], threads: Int) throws -> AnalysisResult {
        var options = AnalyzeOptions(paths: paths, threads: threads)
        // As many partials as threads, even above the core count: the point is
        // to merge many partials whatever machine runs the test.
        options.maximumWorkers = threads
        return try Analyzer(options: options).analyze()
    }

    /// The three outputs that depend only on the kept events.
    private func eventOutputs(_ result: AnalysisResult) -> [[UInt8]] {
        [result.installsCSV(), result.profileSwitchesCSV(), result.quizAnswersCSV()]
    }

    func testThreadCountNeverChangesAnyByte() throws {
        let directory = TemporaryDirectory()
        let path = directory.write("events.ndjson.gz", generateGzipExport(Self.configuration, members: 3))
        let one = try run([path], threads: 1).csvFiles()
        for threads in [2, 3, 8] {
            let many = try run([path], threads: threads).csvFiles()
            for (a, b) in zip(one, many) { XCTAssertEqual(a.contents, b.contents, "\(a.name) with \(threads) threads") }
        }
    }

    /// Several inputs are inflated at once, one per worker: every CSV —
    /// rejects' file names and line numbers, which copy of a duplicate spread
    /// over two inputs is kept — is the same as when one thread reads them in
    /// turn.
    func testSeveralInputsReadAtOnceChangeNoByte() throws {
        let directory = TemporaryDirectory()
        let lines = Self.export.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        var paths: [String] = []
        let parts = 5
        for part in 0..<parts {
            let slice = lines[(part * lines.count / parts)..<((part + 1) * lines.count / parts)]
            let bytes = Array(slice.joined(separator: [0x0A])) + [0x0A]
            paths.append(part % 2 == 0
                ? directory.write("part\(part).ndjson.gz", gzip(bytes))
                : directory.write("part\(part).ndjson", bytes))
        }
        let one = try run(paths, threads: 1)
        XCTAssertGreaterThan(one.quality.duplicates, 0, "the export has duplicates")
        XCTAssertGreaterThan(one.quality.rejected, 0, "and rejects")
        XCTAssertEqual(Set(one.rejects.map(\.file)).count, parts, "in every part")
        for threads in [2, 4, 8] {
            let many = try run(paths, threads: threads).csvFiles()
            for (a, b) in zip(one.csvFiles(), many) { XCTAssertEqual(a.contents, b.contents, "\(a.name) with \(threads) threads") }
        }
        // And the same kept events as the export in one piece.
        let whole = try run([directory.write("whole.ndjson", Self.export)], threads: 2)
        XCTAssertEqual(eventOutputs(one), eventOutputs(whole))
        XCTAssertEqual(one.quality.duplicates, whole.quality.duplicates)
    }

    func testQualityMatchesTheGeneratorsOwnCount() throws {
        let directory = TemporaryDirectory()
        let result = try run([directory.write("events.ndjson", Self.export)], threads: 2)
        let expected = Self.report
        XCTAssertEqual(result.quality.lines, expected.lines)
        XCTAssertEqual(result.quality.events, expected.events)
        XCTAssertEqual(result.quality.duplicates, expected.duplicates)
        XCTAssertEqual(result.quality.conflictingDuplicates, expected.conflictingDuplicates)
        XCTAssertEqual(result.quality.rejectedByReason, expected.rejectedByReason)
        XCTAssertEqual(result.quality.unknownEventTypes, expected.unknownEventType)
        XCTAssertEqual(result.quality.lines, result.quality.events + result.quality.duplicates + result.quality.rejected)
    }

    func testShuffledAndSplitLinesGiveTheSameMetrics() throws {
        // Without noise every line is a distinct, valid event, so any order keeps the same set.
        let clean = GeneratorConfiguration(seed: 5, events: 5_000, days: 7)
        let lines = generateExport(clean).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true).map(Array.init)
        let directory = TemporaryDirectory()
        let reference = eventOutputs(try run([directory.write("ordered.ndjson", lines.joined(separator: [0x0A]) + [0x0A])], threads: 2))
        var rng = SplitMix64(2026)   // seeded: a failure reproduces
        for round in 0..<3 {
            let shuffled = lines.shuffled(using: &rng)
            let cut1 = Int.random(in: 1..<(shuffled.count / 2), using: &rng)
            let cut2 = Int.random(in: (shuffled.count / 2)..<shuffled.count, using: &rng)
            let parts = [shuffled[..<cut1], shuffled[cut1..<cut2], shuffled[cut2...]].map { Array($0.joined(separator: [0x0A])) + [0x0A] }
            let paths = [
                directory.write("r\(round)-a.ndjson", parts[0]),
                directory.write("r\(round)-b.ndjson.gz", gzip(parts[1])),
                directory.write("r\(round)-c.ndjson", parts[2]),
            ]
            XCTAssertEqual(eventOutputs(try run(paths, threads: round + 1)), reference, "round \(round)")
        }
    }

    func testGzipMemberBoundariesChangeNothingButStoredBytes() throws {
        let directory = TemporaryDirectory()
        let plain = try run([directory.write("plain.ndjson", Self.export)], threads: 2)
        for members in [1, 2, 7] {
            let packed = try run([directory.write("m\(members).gz", generateGzipExport(Self.configuration, members: members))], threads: 2)
            XCTAssertEqual(eventOutputs(packed), eventOutputs(plain), "\(members) members")
            XCTAssertEqual(packed.rejects.map(\.line), plain.rejects.map(\.line))
            XCTAssertEqual(packed.rejects.map(\.reason), plain.rejects.map(\.reason))
            var quality = packed.quality
            quality.bytesRead = plain.quality.bytesRead
            XCTAssertEqual(quality, plain.quality)
        }
    }

    /// `text` cut at line ends into chunks of about `sizes` bytes, numbered
    /// in order.
    private static func chunks(of text: [UInt8], sizes: ClosedRange<Int>, using rng: inout SplitMix64) -> [Chunk] {
        var chunks: [Chunk] = []
        var start = 0
        while start < text.count {
            var end = min(text.count, start + Int.random(in: sizes, using: &rng))
            while end < text.count && text[end - 1] != 0x0A { end += 1 }
            let chunk = Chunk(capacity: end - start)
            text[start..<end].withUnsafeBytes { chunk.storage.copyMemory(from: $0) }
            chunk.count = end - start
            chunk.sequence = chunks.count
            chunks.append(chunk)
            start = end
        }
        return chunks
    }

    /// The five CSVs computed from a merged partial.
    private static func csvs(of partial: PartialAggregate) -> [[UInt8]] {
        AnalysisResult(merged: partial, files: [InputFile(displayName: "x", location: .standardInput)],
                       bytesRead: 0, bytesDecoded: 0, timeZone: .utc).csvFiles().map(\.contents)
    }

    /// Partials merged in any grouping and order give the same result as one
    /// partial that saw every chunk (the merge is associative and commutative).
    func testPartialsMergeInAnyOrder() throws {
        var rng = SplitMix64(7)
        let chunks = Self.chunks(of: Self.export, sizes: 1_000...40_000, using: &rng)
        var whole = PartialAggregate(maxLineBytes: 1 << 20, maxRejectRows: 50)
        for chunk in chunks { whole.consume(chunk) }
        let expected = Self.csvs(of: whole)
        for round in 0..<4 {
            var partials = (0..<(round + 2)).map { _ in PartialAggregate(maxLineBytes: 1 << 20, maxRejectRows: 50) }
            for chunk in chunks { partials[Int.random(in: 0..<partials.count, using: &rng)].consume(chunk) }
            partials.shuffle(using: &rng)
            // Merge as a random binary tree.
            while partials.count > 1 {
                let i = Int.random(in: 0..<(partials.count - 1), using: &rng)
                var left = partials.remove(at: i)
                left.merge(partials.remove(at: i))
                partials.insert(left, at: i)
            }
            XCTAssertEqual(Self.csvs(of: partials[0]), expected, "round \(round)")
        }
    }

    /// A worker that reads several inputs at once meets their chunks out of
    /// input order: partials fed chunks in any order still agree with one
    /// that saw them in order, rejects included (regression: a reject sample
    /// kept in the order met, and cut at the limit, listed and dropped the
    /// wrong rows; found by the differential test on a directory of parts).
    func testPartialsThatMeetChunksOutOfOrderAgree() throws {
        var rng = SplitMix64(21)
        let chunks = Self.chunks(of: Self.export, sizes: 500...8_000, using: &rng)
        for maxRejectRows in [0, 1, 7, 10_000] {
            var whole = PartialAggregate(maxLineBytes: 1 << 20, maxRejectRows: maxRejectRows)
            for chunk in chunks { whole.consume(chunk) }
            let expected = Self.csvs(of: whole)
            for workers in 1...3 {
                var partials = (0..<workers).map { _ in PartialAggregate(maxLineBytes: 1 << 20, maxRejectRows: maxRejectRows) }
                for chunk in chunks.shuffled(using: &rng) { partials[Int.random(in: 0..<workers, using: &rng)].consume(chunk) }
                var merged = partials.removeFirst()
                for partial in partials { merged.merge(partial) }
                XCTAssertEqual(Self.csvs(of: merged), expected, "limit \(maxRejectRows), \(workers) partials")
            }
        }
    }

    /// A partial whose first identity is a customer user (an unknown type
    /// with no device or profile) has it as its identity 0, which a merge
    /// maps like any other: u2, first seen there on 11-01 and again in the
    /// other partial on 11-03, installs once, on 11-01, whichever partial
    /// absorbs the other. Regression (mutation testing): a merge that left
    /// the other partial's customer user 0 unmapped made it the absorbing
    /// partial's identity 0 (device d1), and u2 installed a second time.
    func testAPartialWhoseFirstIdentityIsACustomerUserMergesIt() throws {
        let lines = [
            event("a1", "sdk_activate", "2026-11-02T00:00:00Z", device: "d1", profile: "p1", cuid: "u1"),
            event("a2", "sdk_activate", "2026-11-03T00:00:00Z", device: "d1", profile: "p1", cuid: "u2"),
            "{\"event_id\":\"b1\",\"event_type\":\"purchase\",\"timestamp\":\"2026-11-01T00:00:00Z\",\"customer_user_id\":\"u2\"}",
            event("b2", "sdk_activate", "2026-11-03T00:00:00Z", device: "d2", profile: "p2"),
        ]
        var rng = SplitMix64(3)
        let chunks = Self.chunks(of: Array(lines.joined(separator: "\n").utf8) + [0x0A], sizes: 1...1, using: &rng)
        XCTAssertEqual(chunks.count, 4)
        for absorbing in 0..<2 {
            var partials = (0..<2).map { _ in PartialAggregate(maxLineBytes: 1 << 20, maxRejectRows: 10) }
            for (i, chunk) in chunks.enumerated() { partials[i / 2].consume(chunk) }
            var merged = partials.remove(at: absorbing)
            merged.merge(partials.removeFirst())
            let result = AnalysisResult(merged: merged, files: [InputFile(displayName: "x", location: .standardInput)],
                                        bytesRead: 0, bytesDecoded: 0, timeZone: .utc)
            XCTAssertEqual(String(decoding: result.installsCSV(), as: UTF8.self), """
                date,by_device_id,by_customer_user_id,by_profile_id
                2026-11-01,0,1,0
                2026-11-02,1,1,1
                2026-11-03,1,0,1

                """, "absorbing partial \(absorbing)")
        }
    }

    func testUnknownTypeSpellingsAreConflicts() throws {
        let lines = [
            "{\"event_id\":\"x\",\"event_type\":\"paywall_shown\",\"timestamp\":0}",
            "{\"event_id\":\"x\",\"event_type\":\"app_open\",\"timestamp\":0}",
            "{\"event_id\":\"x\",\"timestamp\":0,\"event_type\":\"paywall_shown\"}",
        ]
        let result = try analyze(lines: lines)
        XCTAssertEqual(result.quality.duplicates, 2)
        XCTAssertEqual(result.quality.conflictingDuplicates, 1)
    }

    /// An identity event whose `event_id` is a UUID in one letter case keeps
    /// only the 16 bytes the id spells until settling (a bare copy; its case
    /// in its record), and is keyed by them and the case; any other event
    /// with such an id is keyed the same way. So copies of one id are
    /// duplicates whatever their types, spellings (escapes) and partials, the
    /// same UUID in the other case is another id, and the ids moved out at
    /// settling still order ties. Every line in its own chunk, chunks spread
    /// over partials. (Regression: the store chose a copy's shard from its
    /// first bytes, so a bare copy and another type's copy of the same id
    /// were never compared.)
    func testLowercaseUUIDIDsAreDuplicatesWhateverTheTypePartialAndSpelling() throws {
        try checkUUIDIDsAreDuplicatesWhateverTheTypePartialAndSpelling(uppercase: false)
    }

    /// The same with upper-case UUIDs (as iOS writes them), whose bare copies
    /// keep their case in their records.
    func testUppercaseUUIDIDsAreDuplicatesWhateverTheTypePartialAndSpelling() throws {
        try checkUUIDIDsAreDuplicatesWhateverTheTypePartialAndSpelling(uppercase: true)
    }

    /// An identity event whose `event_id` is a short id (1 to 16 bytes, the
    /// last not NUL) keeps it bare too, padded with NUL bytes: copies of one
    /// id are duplicates whatever their types, spellings and partials; a
    /// prefix, a 17-byte id and an id ending in NUL (which padding could not
    /// tell from its prefix) are other ids; and ties order by the ids' bytes.
    func testShortIDsAreDuplicatesWhateverTheTypePartialAndSpelling() throws {
        let s = "evt_6d15dece4af8"  // 16 bytes
        let escaped = "\\u0065vt_6d15dece4af8"  // the same id, its first letter escaped
        // Device d9 at one instant: by id, "1" (pA) < "1\0" (pB: an identify
        // switch) < "10" (pA: a logout switch).
        let lines = [
            event(s, "sdk_activate", "2026-11-01T00:00:00Z", device: "d1", profile: "p1"),
            event("10", "logout", "2026-11-01T05:00:00Z", device: "d9", profile: "pA"),
            event(s, "sdk_activate", "2026-11-01T00:00:00Z", device: "d1", profile: "p1"),
            event("1\\u0000", "identify", "2026-11-01T05:00:00Z", device: "d9", profile: "pB", cuid: "u9"),
            event(s, "paywall_shown", "2026-11-01T00:00:00Z", device: "d1", profile: "p1"),
            event(escaped, "sdk_activate", "2026-11-01T00:00:00Z", device: "d1", profile: "p1"),
            event(String(s.dropLast()), "sdk_activate", "2026-11-01T00:00:00Z", device: "d2", profile: "p2"),
            event(s + "0", "sdk_activate", "2026-11-01T00:00:00Z", device: "d3", profile: "p3"),
            event("1", "sdk_activate", "2026-11-01T05:00:00Z", device: "d9", profile: "pA"),
            event("10", "logout", "2026-11-01T05:00:00Z", device: "d9", profile: "pA"),
        ]
        Self.forEachMerge(of: lines, seed: 6) { result, workers in
            // s (kept: the first), its copy, its other type (a conflict),
            // its escaped spelling; its prefix; s + "0"; "1", "1\0", "10"
            // and "10" again.
            Self.assertSixEventsAndFourDuplicates(
                result, context: "\(workers) partials",
                switches: "date,trigger,switches,devices\n2026-11-01,identify,1,1\n2026-11-01,logout,1,1\n",
                installs: "date,by_device_id,by_customer_user_id,by_profile_id\n2026-11-01,4,1,5\n")
        }
    }

    private func checkUUIDIDsAreDuplicatesWhateverTheTypePartialAndSpelling(uppercase: Bool) throws {
        func spelled(_ id: String) -> String { uppercase ? id.uppercased() : id }
        let u = spelled("0a1b2c3d-0000-4000-8000-00000000000a")
        let escaped = "\\u0030" + u.dropFirst()  // the same id, its first digit escaped
        let otherCase = uppercase ? u.lowercased() : u.uppercased()  // another id
        // Device d9: three identity events at one instant, listed against
        // their ids' order. By id (a < b < c): a (pA), b (pA, no switch),
        // c (pB, a logout switch). In line order b would be a switch too.
        // c's last 8 digits are ffffffff (the bytes where a keyed copy has
        // its fingerprint).
        let a = spelled("00000000-0000-4000-8000-000000000001")
        let b = spelled("7fffffff-0000-4000-8000-000000000002")
        let c = spelled("c0000000-0000-4000-8000-00ffffffffff")
        let lines = [
            event(u, "sdk_activate", "2026-11-01T00:00:00Z", device: "d1", profile: "p1"),
            event(c, "logout", "2026-11-01T05:00:00Z", device: "d9", profile: "pB"),
            event(u, "sdk_activate", "2026-11-01T00:00:00Z", device: "d1", profile: "p1"),
            event(b, "identify", "2026-11-01T05:00:00Z", device: "d9", profile: "pA", cuid: "u9"),
            event(u, "paywall_shown", "2026-11-01T00:00:00Z", device: "d1", profile: "p1"),
            event(escaped, "sdk_activate", "2026-11-01T00:00:00Z", device: "d1", profile: "p1"),
            event(a, "sdk_activate", "2026-11-01T05:00:00Z", device: "d9", profile: "pA"),
            event(otherCase, "sdk_activate", "2026-11-01T00:00:00Z", device: "d2", profile: "p2"),
            // An id kept as written (an extra): merges then renumber the
            // other partials' extras, which must leave bare ids (and their
            // case) alone.
            event("evt-1", "sdk_activate", "2026-11-01T01:00:00Z", device: "d1", profile: "p1"),
            event(c, "logout", "2026-11-01T05:00:00Z", device: "d9", profile: "pB"),
        ]
        Self.forEachMerge(of: lines, seed: 5) { result, workers in
            // u (kept: the first), its copy, its other type (a conflict), its
            // escaped spelling; u in the other case (another id); evt-1;
            // a, b, c and c again.
            Self.assertSixEventsAndFourDuplicates(
                result, context: "\(workers) partials, uppercase \(uppercase)",
                switches: "date,trigger,switches,devices\n2026-11-01,logout,1,1\n",
                installs: "date,by_device_id,by_customer_user_id,by_profile_id\n2026-11-01,3,1,4\n")
        }
    }

    /// What the duplicate tests' ten lines give, however they were merged:
    /// six events, four duplicates (one a conflict), and the two event CSVs.
    private static func assertSixEventsAndFourDuplicates(
        _ result: AnalysisResult, context: String, switches: String, installs: String,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(result.quality.lines, 10, file: file, line: line)
        XCTAssertEqual(result.quality.events, 6, context, file: file, line: line)
        XCTAssertEqual(result.quality.duplicates, 4, context, file: file, line: line)
        XCTAssertEqual(result.quality.conflictingDuplicates, 1, context, file: file, line: line)
        XCTAssertEqual(String(decoding: result.profileSwitchesCSV(), as: UTF8.self), switches, context, file: file, line: line)
        XCTAssertEqual(String(decoding: result.installsCSV(), as: UTF8.self), installs, context, file: file, line: line)
    }

    /// Runs `lines`, one line per chunk, through 1 to 4 partials, eight times
    /// each (chunks shuffled and spread at random, partials merged in random
    /// order), and calls `check` with each result and its number of partials.
    private static func forEachMerge(of lines: [String], seed: UInt64, _ check: (AnalysisResult, Int) -> Void) {
        let text = Array(lines.joined(separator: "\n").utf8) + [0x0A]
        var rng = SplitMix64(seed)
        let chunks = Self.chunks(of: text, sizes: 1...1, using: &rng)
        XCTAssertEqual(chunks.count, lines.count)
        for workers in 1...4 {
            for _ in 0..<8 {
                var partials = (0..<workers).map { _ in PartialAggregate(maxLineBytes: 1 << 20, maxRejectRows: 10) }
                for chunk in chunks.shuffled(using: &rng) { partials[Int.random(in: 0..<workers, using: &rng)].consume(chunk) }
                partials.shuffle(using: &rng)
                var merged = partials.removeFirst()
                for partial in partials { merged.merge(partial) }
                check(AnalysisResult(
                    merged: merged, files: [InputFile(displayName: "x", location: .standardInput)],
                    bytesRead: 0, bytesDecoded: 0, timeZone: .utc), workers)
            }
        }
    }
}
