@testable import AnalyzeKit
import EventGenerator
import Foundation
import XCTest

/// A run that needs more than one run can hold (``RunCapacity``) stops with
/// exit 2, a message naming the limit, and no output, instead of trapping on
/// a packed field's range. The limits are lowered here to reach them with a
/// few lines; each is met exactly at its count and passed one below it. The
/// limits on handles (extras, answers, answer options) count what a segment
/// left unfilled too: ``testMergeCountsTheHandlesASegmentLeftUnfilled()``,
/// ``testAnAnswersOptionsThatStartANewSegmentCountTheGap()``.
final class RunCapacityTests: XCTestCase {
    /// Counted by hand:
    /// - identities: d1, d2, d3, p1, p2, u1 — 6;
    /// - bare ids (identity events whose id is a one-case UUID or at most 16
    ///   bytes): a1, a2 and the UUID of the third activation — 3;
    /// - extras: the identify with a long id, and the two answers — 3;
    /// - answers: 2;
    /// - answer options: 1 + 2 — 3 (the two actions differ, so neither
    ///   shares the other's options);
    /// - quiz strings: quiz, level, a, A, Alpha, drinks, t, T, Tea, c, C,
    ///   Coffee — 12.
    ///
    /// The first three lines go to one partial and the rest to another in
    /// ``testMergeStopsAtTheLimitOfTheTwoTogether()``: (4, 1, 2, 1, 1, 5) and
    /// (4, 2, 1, 1, 2, 8) of (identities, bare ids, extras, answers, options,
    /// quiz strings).
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

    static let counts = (identities: 6, bareIDs: 3, extras: 3, answers: 2, answerOptions: 3, quizStrings: 12)

    /// The standard capacity with one limit set to `value`.
    private static func capacity(_ limit: WritableKeyPath<RunCapacity, Int>, _ value: Int) -> RunCapacity {
        var capacity = RunCapacity.standard
        capacity[keyPath: limit] = value
        return capacity
    }

    /// Each limit: where it is, the example's count of it, its name, and
    /// whether it bounds handles (which match the count in one partial).
    private static var limits: [(WritableKeyPath<RunCapacity, Int>, Int, (Int) -> CapacityLimit, onHandles: Bool)] {
        [
            (\.identities, counts.identities, CapacityLimit.identities, false),
            (\.bareIDs, counts.bareIDs, CapacityLimit.bareIDs, false),
            (\.extras, counts.extras, CapacityLimit.extras, true),
            (\.answers, counts.answers, CapacityLimit.answers, true),
            (\.answerOptions, counts.answerOptions, CapacityLimit.answerOptions, true),
            (\.quizStrings, counts.quizStrings, CapacityLimit.quizStrings, false),
        ]
    }

    /// The longest of ``lines``, in bytes.
    static let longestLine = lines.map(\.utf8.count).max()!

    /// Through the whole pipeline, one input or one input per line, one
    /// worker or three: at each limit's count the run writes what an
    /// unlimited run writes (for a limit on handles, when one partial holds
    /// every line); one below, it fails with exit 2 and the limit's message,
    /// and the outputs of an earlier run stay as they were.
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
                // One input is one chunk, so one partial; one worker makes one too.
                let onePartial = paths.count == 1 || threads == 1
                // A line's length is a limit of its own partial (not of a merge).
                let lineLimit = (\RunCapacity.lineBytes, Self.longestLine, CapacityLimit.lineBytes, onHandles: false)
                for (limit, count, named, onHandles) in Self.limits + [lineLimit] {
                    let context = "\(named(count)), \(paths.count) inputs, \(threads) threads"
                    if onePartial || !onHandles {
                        let met = try Analyzer(options: options(Self.capacity(limit, count), out: directory.path + "/met")).run()
                        XCTAssertEqual(met.csvFiles().map(\.contents), expected.map(\.contents), context)
                    }

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
        for (limit, count, named, _) in Self.limits {
            let capacity = Self.capacity(limit, count - 1)
            var a = Self.partial(capacity)
            var b = Self.partial(capacity)
            a.consume(first)
            b.consume(second)
            XCTAssertNil(a.exceededLimit, "\(named(count - 1))")
            XCTAssertNil(b.exceededLimit, "\(named(count - 1))")
            a.merge(b)
            XCTAssertEqual(a.exceededLimit, named(count - 1))
        }
    }

    /// Regression test (a review's finding): a merge checked the summed
    /// counts of extras, answers and options, but the other partial's
    /// handles start after our last segment, past what it left unfilled, so
    /// a merge well within the counts could still trap on the packed field.
    ///
    /// Segments hold 1 MiB of elements, rounded down to a power of two:
    /// 2¹⁵ extras (20 bytes), 2¹⁶ answers (12 bytes), 2¹⁸ options (4 bytes).
    /// The first three lines hold 2 extras, 1 answer and 1 option; the rest
    /// 1 extra, 1 answer and 2 options, so the merged handles end at
    /// 2¹⁵ + 1, 2¹⁶ + 1 and 2¹⁸ + 2.
    func testMergeCountsTheHandlesASegmentLeftUnfilled() throws {
        XCTAssertEqual(SegmentedArray<EventExtra>().shift, 15)
        XCTAssertEqual(SegmentedArray<AnswerRecord>().shift, 16)
        XCTAssertEqual(SegmentedArray<UInt32>().shift, 18)
        let ends: [(WritableKeyPath<RunCapacity, Int>, Int, CapacityLimit)] = [
            (\.extras, (1 << 15) + 1, .extras((1 << 15))),
            (\.answers, (1 << 16) + 1, .answers((1 << 16))),
            (\.answerOptions, (1 << 18) + 2, .answerOptions((1 << 18) + 1)),
        ]
        for (limit, end, passed) in ends {
            for (value, expected) in [(end, nil), (end - 1, passed)] {
                let capacity = Self.capacity(limit, value)
                var a = Self.partial(capacity)
                var b = Self.partial(capacity)
                a.consume(Self.chunk(Self.lines[0..<3], sequence: 0))
                b.consume(Self.chunk(Self.lines[3...], sequence: 1))
                a.merge(b)
                XCTAssertEqual(a.exceededLimit, expected, "limit \(value)")
            }
        }
    }

    /// Regression test (a review's finding): options are stored one answer
    /// to a run, and a run that does not fit the rest of a segment starts
    /// the next one. Answers of 2¹⁷ + 1 and 2¹⁷ options: 2¹⁸ + 1 in all,
    /// the second starting at 2¹⁸, so their handles end at 2¹⁸ + 2¹⁷.
    func testAnAnswersOptionsThatStartANewSegmentCountTheGap() throws {
        func manyOptions(_ prefix: String, _ count: Int) -> String {
            answer("quiz", prefix, "multiSelect", (0..<count).map { ("\(prefix)\($0)", "v", "l") })
        }
        let lines = [
            event("q1", "onboarding_state_updated", "2026-11-01T00:00:00Z", action: manyOptions("x", (1 << 17) + 1)),
            event("q2", "onboarding_state_updated", "2026-11-01T00:00:01Z", action: manyOptions("y", 1 << 17)),
        ]
        let end = (1 << 18) + (1 << 17)
        for (value, expected) in [(end, nil), (end - 1, CapacityLimit.answerOptions(end - 1))] {
            var partial = PartialAggregate(
                maxLineBytes: 1 << 24, maxRejectRows: 10, capacity: Self.capacity(\.answerOptions, value))
            partial.consume(Self.chunk(lines[...], sequence: 0))
            XCTAssertEqual(partial.lines, 2)
            XCTAssertEqual(partial.answerOptions.count, value == end ? (1 << 18) + 1 : (1 << 17) + 1)
            XCTAssertEqual(partial.exceededLimit, expected, "limit \(value)")
        }
    }

    /// Regression (mutation testing): a merge checks the options' summed
    /// count as well as their handles' end, which the count passes when an
    /// answer longer than a segment (2¹⁸ options) has a segment of its own:
    /// 2¹⁸ + 1 options in one partial (their handles end there, and the
    /// other's start at 2¹⁸) and 1 in the other end at 2¹⁸ + 1 but number
    /// 2¹⁸ + 2. A merge that checked the handles only passed that limit.
    func testMergeStopsAtTheOptionsCountWhereItPassesTheirHandles() throws {
        func manyOptions(_ prefix: String, _ count: Int) -> String {
            answer("quiz", prefix, "multiSelect", (0..<count).map { ("\(prefix)\($0)", "v", "l") })
        }
        let big = event("q1", "onboarding_state_updated", "2026-11-01T00:00:00Z", action: manyOptions("x", (1 << 18) + 1))
        let small = event("q2", "onboarding_state_updated", "2026-11-01T00:00:01Z", action: manyOptions("y", 1))
        let count = (1 << 18) + 2
        for (value, expected) in [(count, nil), (count - 1, CapacityLimit.answerOptions(count - 1))] {
            let capacity = Self.capacity(\.answerOptions, value)
            var a = PartialAggregate(maxLineBytes: 1 << 24, maxRejectRows: 10, capacity: capacity)
            var b = PartialAggregate(maxLineBytes: 1 << 24, maxRejectRows: 10, capacity: capacity)
            a.consume(Self.chunk([big][...], sequence: 0))
            b.consume(Self.chunk([small][...], sequence: 1))
            XCTAssertEqual(a.answerOptions.count, (1 << 18) + 1)
            XCTAssertEqual(a.answerOptions.handleEnd(adopting: b.answerOptions), (1 << 18) + 1)
            XCTAssertNil(a.exceededLimit, "limit \(value)")
            XCTAssertNil(b.exceededLimit, "limit \(value)")
            a.merge(b)
            XCTAssertEqual(a.exceededLimit, expected, "limit \(value)")
        }
    }

    /// Seeded random exports, split into one to four inputs and read by one
    /// to four workers, against a model that counts what the dense limits
    /// count: at its count each dense limit is met and the outputs are an
    /// unlimited run's; one below, the run fails naming it. The limits on
    /// handles fail one below their count too (handles are never fewer), and
    /// wherever a run under a lowered limit succeeds, its outputs are an
    /// unlimited run's: nothing is dropped without the run failing.
    func testRandomExportsAgainstACountingModel() throws {
        var rng = SplitMix64(47)
        func pick(_ n: Int) -> Int { Int(rng.next() % UInt64(n)) }
        for round in 0..<16 {
            var lines: [String] = []
            var identities = Set<String>(), quizStrings = Set<String>()
            var bareIDs = 0, extras = 0, answers = 0, options = 0
            for i in 0..<(20 + pick(40)) {
                let short = pick(2) == 0
                let id = short ? "e\(i)" : "long-event-identifier-\(i)-0123456789"
                let (device, profile) = ("d\(pick(10))", "p\(pick(7))")
                let timestamp = "2026-11-0\(1 + pick(3))T00:00:\(10 + pick(50))Z"
                identities.formUnion([device, profile])
                switch pick(4) {
                case 0, 1, 2:
                    let type = ["sdk_activate", "identify", "logout"][pick(3)]
                    let cuid = type == "identify" ? "u\(pick(5))" : nil
                    if let cuid { identities.insert(cuid) }
                    lines.append(event(id, type, timestamp, device: device, profile: profile, cuid: cuid))
                    if short { bareIDs += 1 } else { extras += 1 }
                default:
                    // A question of its own: no action is met again, so none
                    // shares its options through the action cache, and the
                    // options stored are those counted here.
                    let (onboarding, element) = ("ob\(pick(2))", "el\(i)")
                    let multi = pick(2) == 0
                    let chosen = Array(Set((0..<(multi ? 1 + pick(3) : 1)).map { _ in pick(5) })).sorted()
                    let picked = chosen.map { ("o\($0)", "V\($0)", "L\($0)") }
                    quizStrings.formUnion([onboarding, element] + picked.flatMap { [$0.0, $0.1, $0.2] })
                    lines.append(event(id, "onboarding_state_updated", timestamp, device: device, profile: profile,
                                       action: answer(onboarding, element, multi ? "multiSelect" : "select", picked)))
                    extras += 1
                    answers += 1
                    options += picked.count
                }
            }
            // Split at random points into one to four inputs; one to four workers.
            let directory = TemporaryDirectory()
            let cuts = ([0, lines.count] + (0..<pick(4)).map { _ in pick(lines.count + 1) }).sorted()
            let paths = (1..<cuts.count).map { directory.write("part-\($0).ndjson", lines: Array(lines[cuts[$0 - 1]..<cuts[$0]])) }
            let threads = 1 + pick(4)
            func run(_ capacity: RunCapacity) -> Result<[[UInt8]], AnalyzeError> {
                var options = AnalyzeOptions(paths: paths, threads: threads)
                options.maximumWorkers = threads
                options.capacity = capacity
                return Result { () throws(AnalyzeError) in try Analyzer(options: options).analyze().csvFiles().map(\.contents) }
            }
            let expected = try run(.standard).get()
            let context = "round \(round), \(paths.count) inputs, \(threads) threads"
            let dense: [(WritableKeyPath<RunCapacity, Int>, Int, (Int) -> CapacityLimit)] = [
                (\.identities, identities.count, CapacityLimit.identities),
                (\.bareIDs, bareIDs, CapacityLimit.bareIDs),
                (\.quizStrings, quizStrings.count, CapacityLimit.quizStrings),
                (\.lineBytes, lines.map(\.utf8.count).max()!, CapacityLimit.lineBytes),
            ]
            for (limit, count, named) in dense {
                XCTAssertEqual(try run(Self.capacity(limit, count)).get(), expected, "\(named(count)), \(context)")
                if count > 0 {
                    XCTAssertEqual(run(Self.capacity(limit, count - 1)).failure, .input(named(count - 1).message), context)
                }
            }
            let onHandles: [(WritableKeyPath<RunCapacity, Int>, Int, (Int) -> CapacityLimit)] = [
                (\.extras, extras, CapacityLimit.extras),
                (\.answers, answers, CapacityLimit.answers),
                (\.answerOptions, options, CapacityLimit.answerOptions),
            ]
            for (limit, count, named) in onHandles {
                if count > 0 {
                    XCTAssertEqual(run(Self.capacity(limit, count - 1)).failure, .input(named(count - 1).message), context)
                }
                // Up to a segment of options (the largest) past the count per input.
                let value = count + pick((1 << 18) * paths.count + 1)
                switch run(Self.capacity(limit, value)) {
                case .success(let outputs): XCTAssertEqual(outputs, expected, "\(named(value)), \(context)")
                case .failure(let error): XCTAssertEqual(error, .input(named(value).message), context)
                }
            }
        }
    }

    /// A line longer than `--max-line-bytes` is `line_too_long` (SPEC §2),
    /// whatever the longest line a run can hold: only a line within the
    /// option and past that fails the run.
    func testALineTooLongIsRejectedBeforeTheLineLimitIsChecked() throws {
        let line = Self.lines[1]  // the identify; the answers' lines are longer
        let directory = TemporaryDirectory()
        let path = directory.write("events.ndjson", lines: Self.lines)
        var options = AnalyzeOptions(paths: [path], threads: 1)
        options.capacity = Self.capacity(\.lineBytes, line.utf8.count - 1)
        options.maxLineBytes = line.utf8.count + 1
        XCTAssertThrowsError(try Analyzer(options: options).analyze()) { error in
            XCTAssertEqual(error as? AnalyzeError, .input(CapacityLimit.lineBytes(line.utf8.count - 1).message))
        }
        // With --max-line-bytes below the line limit, the lines past it are
        // line_too_long (that identify and both answers) and the run succeeds.
        options.maxLineBytes = line.utf8.count - 2
        let result = try Analyzer(options: options).analyze()
        XCTAssertEqual(result.rejects.map(\.reason), [.lineTooLong, .lineTooLong, .lineTooLong])
    }

    /// A partial that passed a limit keeps saying so through later chunks
    /// and merges, whichever side of a merge it is on.
    func testAPassedLimitOutlivesLaterChunksAndMerges() throws {
        let capacity = Self.capacity(\.extras, 1)
        let all = Self.chunk(Self.lines[...], sequence: 0)
        var full = Self.partial(capacity)
        full.consume(all)
        XCTAssertEqual(full.exceededLimit, .extras(1))
        full.consume(Self.chunk(Self.lines[0..<1], sequence: 1))
        XCTAssertEqual(full.exceededLimit, .extras(1))

        var empty = Self.partial(capacity)
        empty.merge(full)
        XCTAssertEqual(empty.exceededLimit, .extras(1))
    }

    /// The standard limits are the largest counts the packed fields hold:
    /// the last id, handle and index they allow are stored and read back.
    func testStandardLimitsAreTheFieldsLargestValues() {
        let standard = RunCapacity.standard
        XCTAssertEqual(standard.identities, (1 << 30) - 1)
        XCTAssertEqual(standard.extras, (1 << 29) - 1)
        XCTAssertEqual(standard.answers, (1 << 30) - 1)
        XCTAssertEqual(standard.bareIDs, (1 << 27) - 1)
        XCTAssertEqual(standard.answerOptions, (1 << 32) - 2)
        XCTAssertEqual(standard.quizStrings, Int(UInt32.max))
        XCTAssertEqual(standard.lineBytes, (1 << 31) - 1)

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
        // The last answer's handle.
        let extra = EventExtra(packedID: (0, 0), kind: .short, answer: Int32(standard.answers - 1))
        XCTAssertEqual(extra.answer, Int32(standard.answers - 1))
        XCTAssertEqual(extra.packedKind, .short)
        // The last handle an answer's options can start at (the end of the
        // handles, for an empty run: at most the largest 32-bit value).
        let answer = AnswerRecord(optionsStart: standard.answerOptions, question: 0, optionsCount: 1, kind: .select)
        XCTAssertEqual(answer.optionsStart, standard.answerOptions)
    }

    func testMessagesNameTheLimitAndSayNothingWasWritten() {
        XCTAssertEqual(
            CapacityLimit.identities(5).message,
            "the inputs hold more than 5 distinct device, profile and customer user ids, the most one run can hold; nothing written")
        XCTAssertEqual(
            CapacityLimit.lineBytes(100).message,
            "a line is longer than 100 bytes, the longest one run can hold; nothing written "
                + "(with --max-line-bytes 100 or less, such lines are rejected as line_too_long)")
        // Limits on handles are passed a little before the count they name.
        XCTAssertEqual(
            CapacityLimit.answers(9).message,
            "the inputs hold more quiz answers than one run can hold (about 9); nothing written")
        let forms = [
            ("the inputs hold more than 7 ", ", the most one run can hold; nothing written", [CapacityLimit.bareIDs(7), .quizStrings(7)]),
            ("the inputs hold more ", " than one run can hold (about 7); nothing written", [.extras(7), .answerOptions(7)]),
        ]
        for (prefix, suffix, limits) in forms {
            for limit in limits {
                XCTAssertTrue(limit.message.hasPrefix(prefix) && limit.message.hasSuffix(suffix), limit.message)
            }
        }
    }

    /// An empty partial for lines of up to 1 MiB under `capacity`.
    private static func partial(_ capacity: RunCapacity) -> PartialAggregate {
        PartialAggregate(maxLineBytes: 1 << 20, maxRejectRows: 10, capacity: capacity)
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

private extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
