import Foundation
import XCTest
@testable import AnalyzeKit

/// A run that needs more than one run can hold (``RunCapacity``) stops with
/// exit 2, a message naming the limit, and no output, instead of trapping on
/// a packed field's range. The limits are lowered here to reach them with a
/// few lines; each is met exactly at its count and passed one below it.
final class RunCapacityTests: XCTestCase {
    /// Counted by hand:
    /// - identities: d1, d2, d3, p1, p2, u1 — 6;
    /// - bare ids (identity events whose id is a one-case UUID or at most 16
    ///   bytes): a1, a2 and the UUID of the third activation — 3;
    /// - extras: the identify with a long id, and the two answers — 3;
    /// - answer options: 1 + 2 — 3 (the two actions differ, so neither
    ///   shares the other's options);
    /// - quiz strings: quiz, level, a, A, Alpha, drinks, t, T, Tea, c, C,
    ///   Coffee — 12.
    ///
    /// The first three lines go to one partial and the rest to another in
    /// ``testMergeStopsAtTheLimitOfTheTwoTogether()``: (4, 1, 2, 1, 5) and
    /// (4, 2, 1, 2, 8) of (identities, bare ids, extras, options, quiz strings).
    static let lines = [
        event("a1", "sdk_activate", "2026-11-01T00:00:00Z", device: "d1", profile: "p1"),
        event("identify-event-with-a-long-id-0001", "identify", "2026-11-01T00:00:01Z", device: "d1", profile: "p2", cuid: "u1"),
        event("q1", "onboarding_state_updated", "2026-11-01T00:00:02Z", device: "d1", profile: "p1",
              action: answer("quiz", "level", "select", [("a", "A", "Alpha")])),
        event("a2", "sdk_activate", "2026-11-01T00:00:03Z", device: "d2", profile: "p1"),
        event("6d15dece-4af8-4180-bf11-6bf5966b692f", "sdk_activate", "2026-11-01T00:00:04Z", device: "d3", profile: "p1"),
        event("q2", "onboarding_state_updated", "2026-11-01T00:00:05Z", device: "d1", profile: "p1",
              action: answer("quiz", "drinks", "multiSelect", [("t", "T", "Tea"), ("c", "C", "Coffee")])),
    ]

    static let counts = (identities: 6, bareIDs: 3, extras: 3, answerOptions: 3, quizStrings: 12)

    /// The standard capacity with one limit set to `value`.
    private static func capacity(_ limit: WritableKeyPath<RunCapacity, Int>, _ value: Int) -> RunCapacity {
        var capacity = RunCapacity.standard
        capacity[keyPath: limit] = value
        return capacity
    }

    /// Each limit: where it is, the example's count of it, and its name.
    private static var limits: [(WritableKeyPath<RunCapacity, Int>, Int, (Int) -> CapacityLimit)] {
        [
            (\.identities, counts.identities, CapacityLimit.identities),
            (\.bareIDs, counts.bareIDs, CapacityLimit.bareIDs),
            (\.extras, counts.extras, CapacityLimit.extras),
            (\.answerOptions, counts.answerOptions, CapacityLimit.answerOptions),
            (\.quizStrings, counts.quizStrings, CapacityLimit.quizStrings),
        ]
    }

    /// Through the whole pipeline, one input or one input per line, one
    /// worker or three: at each limit's count the run writes what an
    /// unlimited run writes; one below, it fails with exit 2 and the limit's
    /// message, and the outputs of an earlier run stay as they were.
    func testARunStopsWithExitTwoOneBelowEachCount() throws {
        let directory = TemporaryDirectory()
        let whole = directory.write("events.ndjson", lines: Self.lines)
        let parts = Self.lines.indices.map { directory.write("part-\($0).ndjson", lines: [Self.lines[$0]]) }
        for paths in [[whole], parts] {
            for threads in [1, 3] {
                func options(_ capacity: RunCapacity, out: String) -> AnalyzeOptions {
                    var options = AnalyzeOptions(paths: paths, threads: threads)
                    options.maximumWorkers = threads
                    options.capacity = capacity
                    options.outputDirectory = out
                    return options
                }
                let expected = try Analyzer(options: options(.standard, out: directory.path + "/expected")).run().csvFiles()
                for (limit, count, named) in Self.limits {
                    let context = "\(named(count)), \(paths.count) inputs, \(threads) threads"
                    let met = try Analyzer(options: options(Self.capacity(limit, count), out: directory.path + "/met")).run()
                    XCTAssertEqual(met.csvFiles().map(\.contents), expected.map(\.contents), context)

                    let earlier = TemporaryDirectory()
                    let out = earlier.path
                    earlier.write("installs.csv", Array("from an earlier run\n".utf8))
                    XCTAssertThrowsError(try Analyzer(options: options(Self.capacity(limit, count - 1), out: out)).run(),
                                         context) { error in
                        let error = error as? AnalyzeError
                        XCTAssertEqual(error?.exitCode, 2, context)
                        XCTAssertEqual(error, .input(named(count - 1).message), context)
                    }
                    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out), ["installs.csv"], context)
                    XCTAssertEqual(FileManager.default.contents(atPath: out + "/installs.csv"),
                                   Data("from an earlier run\n".utf8), context)
                }
            }
        }
    }

    /// A gzip input of several chunks whose first chunk already passes the
    /// limit: each worker stops after its first chunk, with input left unread
    /// (no one waits for the chunks they leave), and the run fails with the
    /// limit's message.
    func testWorkersStopEarlyWithInputLeftUnread() throws {
        let directory = TemporaryDirectory()
        // 40 000 activations, each with a device of its own: about 4.5 MB, 5 chunks.
        let lines = (0..<40_000).map {
            event("a\($0)", "sdk_activate", "2026-11-01T00:00:00Z", device: "device-\($0)", profile: "p1")
        }
        let text = Array(lines.map { $0 + "\n" }.joined().utf8)
        XCTAssertGreaterThan(text.count, 3 * Chunk.defaultCapacity)
        let path = directory.write("events.ndjson.gz", gzip(text))
        for threads in [1, 2] {
            var options = AnalyzeOptions(paths: [path], threads: threads)
            options.maximumWorkers = threads
            options.capacity = Self.capacity(\.identities, 100)
            options.outputDirectory = directory.path + "/out"
            let progress = Analyzer.Progress()
            XCTAssertThrowsError(try Analyzer(options: options).run(progress: progress), "\(threads) threads") { error in
                XCTAssertEqual(error as? AnalyzeError, .input(CapacityLimit.identities(100).message))
            }
            // Each chunk alone passes the limit, so each worker parsed one.
            let shortest = lines.map(\.utf8.count).min()! + 1
            XCTAssertLessThanOrEqual(progress.lines.load(ordering: .relaxed), threads * Chunk.defaultCapacity / shortest)
            XCTAssertFalse(FileManager.default.fileExists(atPath: directory.path + "/out"))
        }
    }

    /// Two partials each within a limit, together past it: the merge stops
    /// and says which limit (before renumbering the other's records, whose
    /// fields could not hold the result).
    func testMergeStopsAtTheLimitOfTheTwoTogether() throws {
        let first = Self.chunk(Self.lines[0..<3], sequence: 0)
        let second = Self.chunk(Self.lines[3...], sequence: 1)
        for (limit, count, named) in Self.limits {
            let capacity = Self.capacity(limit, count - 1)
            var a = PartialAggregate(maxLineBytes: 1 << 20, maxRejectRows: 10, capacity: capacity)
            var b = PartialAggregate(maxLineBytes: 1 << 20, maxRejectRows: 10, capacity: capacity)
            a.consume(first)
            b.consume(second)
            XCTAssertNil(a.exceededLimit, "\(named(count - 1))")
            XCTAssertNil(b.exceededLimit, "\(named(count - 1))")
            a.merge(b)
            XCTAssertEqual(a.exceededLimit, named(count - 1))
        }
    }

    /// A partial that passed a limit keeps saying so through later chunks
    /// and merges, whichever side of a merge it is on.
    func testAPassedLimitOutlivesLaterChunksAndMerges() throws {
        let capacity = Self.capacity(\.extras, 1)
        let all = Self.chunk(Self.lines[...], sequence: 0)
        var full = PartialAggregate(maxLineBytes: 1 << 20, maxRejectRows: 10, capacity: capacity)
        full.consume(all)
        XCTAssertEqual(full.exceededLimit, .extras(1))
        full.consume(Self.chunk(Self.lines[0..<1], sequence: 1))
        XCTAssertEqual(full.exceededLimit, .extras(1))

        var empty = PartialAggregate(maxLineBytes: 1 << 20, maxRejectRows: 10, capacity: capacity)
        empty.merge(full)
        XCTAssertEqual(empty.exceededLimit, .extras(1))
    }

    /// The standard limits are the largest counts the packed fields hold:
    /// the last id, handle and index they allow are stored and read back.
    func testStandardLimitsAreTheFieldsLargestValues() {
        let standard = RunCapacity.standard
        XCTAssertEqual(standard.identities, (1 << 30) - 1)
        XCTAssertEqual(standard.extras, (1 << 29) - 1)
        XCTAssertEqual(standard.bareIDs, (1 << 27) - 1)
        XCTAssertEqual(standard.answerOptions, Int(UInt32.max) - 2)
        XCTAssertEqual(standard.quizStrings, Int(UInt32.max))

        // The last identity's id plus one, the last extra's handle.
        var record = EventRecord(
            seconds: 0, nanoseconds: 0, extra: Int32(standard.extras - 1), device: UInt32(standard.identities),
            profile: UInt32(standard.identities), customerUser: UInt32(standard.identities), type: .identify)
        XCTAssertEqual(record.device, UInt32(standard.identities))
        XCTAssertEqual(record.customerUser, UInt32(standard.identities))
        XCTAssertEqual(record.extra, Int32(standard.extras - 1))
        // The last bare id's index, with the kind that shares its field.
        record.setBareID(index: standard.bareIDs - 1, kind: .short)
        XCTAssertEqual(record.bareIDIndex, standard.bareIDs - 1)
        XCTAssertEqual(record.bareIDKind, .short)
        // The last option's handle.
        let answer = AnswerRecord(optionsStart: standard.answerOptions, question: 0, optionsCount: 1, kind: .select)
        XCTAssertEqual(answer.optionsStart, standard.answerOptions)
    }

    func testMessagesNameTheLimitAndSayNothingWasWritten() {
        XCTAssertEqual(
            CapacityLimit.identities(5).message,
            "the inputs hold more than 5 distinct device, profile and customer user ids, the most one run can hold; nothing written")
        for limit in [CapacityLimit.extras(7), .bareIDs(7), .answerOptions(7), .quizStrings(7)] {
            XCTAssertTrue(limit.message.hasPrefix("the inputs hold more than 7 "), limit.message)
            XCTAssertTrue(limit.message.hasSuffix(", the most one run can hold; nothing written"), limit.message)
        }
    }

    /// One chunk holding `lines`, numbered `sequence`.
    private static func chunk(_ lines: ArraySlice<String>, sequence: Int) -> Chunk {
        let text = Array(lines.map { $0 + "\n" }.joined().utf8)
        let chunk = Chunk(capacity: text.count)
        text.withUnsafeBytes { chunk.storage.copyMemory(from: $0) }
        chunk.count = text.count
        chunk.sequence = sequence
        return chunk
    }
}
