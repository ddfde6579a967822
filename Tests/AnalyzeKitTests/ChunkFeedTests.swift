import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import EventGenerator
import XCTest
@testable import AnalyzeKit

/// The chunk feed cuts every input into newline-aligned chunks, in input
/// order, for workers that each fill their own chunk: checked here with
/// chunks far smaller than the real 1 MiB, so lines cross chunk ends often.
final class ChunkFeedTests: XCTestCase {
    private static let capacity = 64

    /// How long waiting workers spin, in the tests that run several: never
    /// (they block at once), 1 ns (every spin runs out, so waits block at once
    /// for a while after), and as in a run.
    private static let spins: [UInt64] = [0, 1, ChunkFeed.defaultSpinNanoseconds]

    private func feed(
        _ paths: [String], workers: Int, chunkBits: Int = 32, spin: UInt64 = ChunkFeed.defaultSpinNanoseconds,
        checksTrailersFromChunks: Bool = true
    ) throws -> ChunkFeed {
        let files = try InputFile.expand(paths)
        let size = ChunkFeed.poolSize(workers: workers, files: files.count)
        let pool = BlockingPool((0..<size).map { _ in Chunk(capacity: Self.capacity) })
        return ChunkFeed(files: files, workers: workers, pool: pool, progress: nil, chunkBits: chunkBits, spinNanoseconds: spin,
                         checksTrailersFromChunks: checksTrailersFromChunks)
    }

    /// What a chunk carries, per file: its lines, or one marker for a line
    /// longer than a chunk.
    private static func tokens(of chunk: Chunk) -> [String] {
        switch chunk.kind {
        case .oversizedLine(let isBlank): return [isBlank ? "<long blank>" : "<long>"]
        case .lines:
            var text = String(decoding: chunk.text, as: UTF8.self)
            XCTAssertTrue(text.hasSuffix("\n") || chunk.count < chunk.capacity, "a full chunk ends at a line end")
            if text.hasSuffix("\n") { text.removeLast() }
            return text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        }
    }

    /// Lines of random lengths: short ones, and some longer than a chunk
    /// (blank or not), which must come out as markers.
    private func randomLines(_ count: Int, using rng: inout SplitMix64) -> (lines: [String], expected: [String]) {
        var lines: [String] = [], expected: [String] = []
        for k in 0..<count {
            switch Int.random(in: 0..<10, using: &rng) {
            case 0:
                let long = String(repeating: "x", count: Int.random(in: (2 * Self.capacity)...(5 * Self.capacity), using: &rng))
                lines.append(long)
                expected.append("<long>")
            case 1:
                lines.append(String(repeating: " ", count: 3 * Self.capacity))
                expected.append("<long blank>")
            default:
                let short = "\(k)" + String(repeating: "a", count: Int.random(in: 0..<(Self.capacity / 2), using: &rng))
                lines.append(short)
                expected.append(short)
            }
        }
        return (lines, expected)
    }

    /// What `workers` concurrent workers took from `feed` until it ended:
    /// each chunk's number, input and tokens, sorted by chunk number.
    private func drain(_ feed: ChunkFeed, workers: Int) -> [Item] {
        // A class, not a stack `Mutex`: ThreadSanitizer reports the closures'
        // accesses to a captured stack variable as a race, lock or not.
        let collected = Collected()
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            while let chunk = feed.next() {
                let item = Item(sequence: chunk.sequence, fileIndex: chunk.fileIndex, tokens: Self.tokens(of: chunk))
                feed.recycle(chunk)
                collected.append(item)
            }
        }
        return collected.items.sorted { $0.sequence < $1.sequence }
    }

    func testChunksCarryEveryLineOfEveryFileInOrder() throws {
        var rng = SplitMix64(7)
        let directory = TemporaryDirectory()
        var paths: [String] = [], expected: [[String]] = []
        for file in 0..<4 {
            let (lines, tokens) = randomLines(60, using: &rng)
            var bytes = Array(lines.joined(separator: "\n").utf8)
            var fileTokens = tokens
            if file == 1 { bytes = [0xEF, 0xBB, 0xBF] + bytes }  // a BOM, skipped
            if file != 2 { bytes.append(0x0A) }  // file 2 ends without a line end
            if file == 3 {
                bytes = []  // an empty file gives no chunk
                fileTokens = []
            }
            paths.append(directory.write("f\(file).ndjson\(file == 0 ? ".gz" : "")", file == 0 ? gzip(bytes) : bytes))
            expected.append(fileTokens)
        }

        let feed = try feed(paths, workers: 1)
        var seen = Array(repeating: [String](), count: paths.count)
        var chunksPerFile = Array(repeating: 0, count: paths.count)
        var previous = -1
        while let chunk = feed.next() {
            // Four inputs: two bits of input index above 30 bits of chunk.
            XCTAssertGreaterThan(chunk.sequence, previous, "one worker gets the chunks in input order")
            XCTAssertEqual(chunk.sequence, chunk.fileIndex << 30 | chunksPerFile[chunk.fileIndex], "chunk numbers")
            previous = chunk.sequence
            chunksPerFile[chunk.fileIndex] += 1
            seen[chunk.fileIndex] += Self.tokens(of: chunk)
            feed.recycle(chunk)
        }
        let sequence = chunksPerFile.reduce(0, +)
        XCTAssertNil(feed.error)
        XCTAssertNil(feed.next(), "an exhausted feed stays exhausted")
        // A line cut at a chunk end is carried whole into the next chunk, so
        // the lines come out exactly as they went in.
        for file in 0..<paths.count { XCTAssertEqual(seen[file], expected[file], "file \(file)") }
        XCTAssertGreaterThan(sequence, 50, "lines crossed many chunk ends")
    }

    /// A reader asked to yield hands its chunk over at the last line end
    /// read so far: chunks come out short, and every line still whole and in
    /// order.
    func testAReaderAskedToYieldCutsAtLineEndsAndLosesNothing() throws {
        var rng = SplitMix64(12)
        let directory = TemporaryDirectory()
        let (lines, expected) = randomLines(500, using: &rng)
        let path = directory.write("events.ndjson.gz", gzip(Array((lines.joined(separator: "\n") + "\n").utf8)))
        var reader = ChunkReader(source: try DecodedTextSource(try InputFile.expand([path])[0]), fileIndex: 0)
        let pool = BlockingPool((0..<2).map { _ in Chunk(capacity: Self.capacity) })
        var asked = 0, early = 0
        var tokens: [String] = []
        while let chunk = try reader.next(take: pool.take, recycle: pool.give, shouldYield: {
            asked += 1
            return asked % 3 != 0
        }) {
            if case .lines = chunk.kind, chunk.count < chunk.capacity { early += 1 }
            tokens += Self.tokens(of: chunk)
            if chunk.capacity > 0 { pool.give(chunk) }
        }
        XCTAssertEqual(tokens, expected)
        XCTAssertGreaterThan(early, 50, "chunks were handed over before they were full")
    }

    /// A reader asked to yield after every short read of a pipe cuts each
    /// chunk at the last line end read so far, found however many reads the
    /// line took. Regression (speed, not output): the line end was looked for
    /// in the whole chunk after every read, quadratic in the line's length
    /// (15 MB lines from a pipe in 64 KiB writes ran at 20 MB/s); it is now
    /// looked for in each read's new bytes only, which this checks gives the
    /// same cuts.
    func testAYieldingReaderOfShortPipeReadsCutsAtTheLastLineEndReadSoFar() throws {
        var rng = SplitMix64(31)
        // Lines from 1 byte to most of a chunk, so that one takes several reads.
        var text: [UInt8] = []
        for _ in 0..<300 {
            text += (0..<Int.random(in: 0...(Self.capacity - 8), using: &rng)).map { _ in UInt8.random(in: 0x61...0x7A, using: &rng) }
            text.append(0x0A)
        }
        var ends: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&ends), 0)
        defer { close(ends[0]) }
        // Written a few bytes at a time, so that reads are short.
        let writeEnd = ends[1]
        let writer = Thread { [text] in
            var offset = 0, rng = SplitMix64(32)
            while offset < text.count {
                let n = min(Int.random(in: 1...9, using: &rng), text.count - offset)
                _ = text.withUnsafeBytes { Glibc.write(writeEnd, $0.baseAddress! + offset, n) }
                offset += n
                if offset % 7 == 0 { usleep(50) }
            }
            close(writeEnd)
        }
        writer.start()
        let file = InputFile(displayName: "pipe", location: .path("/proc/self/fd/\(ends[0])"))
        var reader = ChunkReader(source: try DecodedTextSource(file), fileIndex: 0)
        let pool = BlockingPool((0..<2).map { _ in Chunk(capacity: Self.capacity) })
        var received: [UInt8] = []
        var chunks = 0
        // Asked to yield after most reads, not all: a read it was not asked
        // after is looked through after the next one.
        var asked = 0
        while let chunk = try reader.next(take: pool.take, recycle: pool.give, shouldYield: {
            asked += 1
            return asked % 4 != 0
        }) {
            XCTAssertEqual(chunk.text.last, 0x0A, "a chunk not cut at a line end")
            received += chunk.text
            chunks += 1
            pool.give(chunk)
        }
        XCTAssertEqual(received, text)
        XCTAssertGreaterThan(chunks, 150, "chunks were not cut at each line end as it arrived")
    }

    /// A chunk grown for a long line is handed over at its last line end once
    /// it holds `cutAfterBytes`, and reads at most `maxReadBytes` at a time,
    /// so it never holds more line ends than those two allow (a line's
    /// position is 32 bits within its chunk). Before, a chunk grown for a line
    /// of 8 GiB filled up with whatever followed: a blank line that long
    /// could leave more than 2³² lines in one chunk. Here a chunk of 64 bytes
    /// grows to 16 KiB for a 10 000-byte line, then meets 10 000 short lines.
    func testAGrownChunkIsCutSoonAfterItsLongLine() throws {
        let directory = TemporaryDirectory()
        let long = String(repeating: "x", count: 10_000)
        let text = Array(([long] + Array(repeating: "a", count: 10_000) + [long] + Array(repeating: "b", count: 500))
            .map { $0 + "\n" }.joined().utf8)
        let plain = directory.write("events.ndjson", text)
        let gzipped = directory.write("events.ndjson.gz", gzip(text))
        for path in [plain, gzipped] {
            let chunks = try chunkTexts(of: path, cutAfterBytes: 256, maxReadBytes: 64)
            for chunk in chunks {
                XCTAssertEqual(chunk.last, 0x0A, "a chunk not cut at a line end")
                XCTAssertLessThanOrEqual(chunk.count(where: { $0 == 0x0A }), 256 + 64, path)
            }
            XCTAssertEqual(Array(chunks.joined()), text, path)
        }
    }

    /// A chunk is handed over at its last line end as soon as it holds
    /// `cutAfterBytes`: exactly that many is enough. Here reads of 16 bytes
    /// (a quarter of the chunk) of 8-byte lines reach 32 on every second
    /// read (mutation testing, round 9: waiting for more than 32 made every
    /// chunk 48 bytes).
    func testAChunkIsCutOnceItHoldsExactlyCutAfterBytes() throws {
        let directory = TemporaryDirectory()
        let text = Array(String(repeating: "1234567\n", count: 40).utf8)
        let path = directory.write("events.ndjson", text)
        let sizes = try chunkTexts(of: path, cutAfterBytes: 32, maxReadBytes: 64).map(\.count)
        XCTAssertEqual(sizes, Array(repeating: 32, count: 10))
    }

    /// The texts of the chunks a reader of `path` hands over, on a pool of
    /// two chunks of this class's capacity, growing to 64 KiB at most.
    private func chunkTexts(of path: String, cutAfterBytes: Int, maxReadBytes: Int) throws -> [[UInt8]] {
        var reader = ChunkReader(
            source: try DecodedTextSource(try InputFile.expand([path])[0]), fileIndex: 0,
            lineCapacity: 1 << 16, cutAfterBytes: cutAfterBytes, maxReadBytes: maxReadBytes)
        let pool = BlockingPool((0..<2).map { _ in Chunk(capacity: Self.capacity) })
        var texts: [[UInt8]] = []
        while let chunk = try reader.next(take: pool.take, recycle: pool.give) {
            texts.append(Array(chunk.text))
            pool.give(chunk)
        }
        return texts
    }

    /// Only the text's first bytes can be a BOM. Regression: a pipe whose
    /// first read gave "a\n" (fewer than the BOM's 3 bytes) and a reader
    /// asked to yield handed that line over before checking, then checked
    /// the next chunk, and dropped the BOM that began the second line (which
    /// is invalid JSON, and without the yield was read as such).
    func testABOMAfterTheFirstLineIsKeptWhenTheFirstChunkIsCutEarly() throws {
        var ends: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&ends), 0)
        defer { close(ends[0]) }
        let write = { (bytes: [UInt8]) in
            XCTAssertEqual(bytes.withUnsafeBytes { Glibc.write(ends[1], $0.baseAddress, $0.count) }, bytes.count)
        }
        write(Array("a\n".utf8))
        // The sniff reads what the pipe holds now: just those two bytes.
        let file = InputFile(displayName: "pipe", location: .path("/proc/self/fd/\(ends[0])"))
        var reader = ChunkReader(source: try DecodedTextSource(file), fileIndex: 0)
        write([0xEF, 0xBB, 0xBF] + Array("{}\n".utf8))
        close(ends[1])
        let pool = BlockingPool((0..<2).map { _ in Chunk(capacity: Self.capacity) })
        var text: [UInt8] = []
        while let chunk = try reader.next(take: pool.take, recycle: pool.give, shouldYield: { true }) {
            text += chunk.text
            pool.give(chunk)
        }
        XCTAssertEqual(text, Array("a\n".utf8) + [0xEF, 0xBB, 0xBF] + Array("{}\n".utf8))
    }

    func testWorkersPullingAtOnceGetEveryChunkOnce() throws {
        var rng = SplitMix64(8)
        let directory = TemporaryDirectory()
        let (lines, expected) = randomLines(3_000, using: &rng)
        let path = directory.write("events.ndjson.gz", gzip(Array((lines.joined(separator: "\n") + "\n").utf8)))
        for (workers, spin) in [(2, Self.spins[0]), (2, Self.spins[1]), (2, Self.spins[2]), (4, Self.spins[2])] {
            let feed = try feed([path], workers: workers, spin: spin)
            let received = drain(feed, workers: workers)
            XCTAssertNil(feed.error)
            XCTAssertEqual(received.map(\.sequence), Array(0..<received.count), "each sequence number once (spin \(spin) ns)")
            XCTAssertEqual(received.flatMap(\.tokens), expected, "\(workers) workers, spin \(spin) ns")
        }
    }

    /// Several inputs are read at once, one per worker: every chunk of every
    /// input still arrives once, numbered by input and by place in it.
    func testWorkersReadSeveralInputsAtOnceAndNumberChunksByInput() throws {
        var rng = SplitMix64(9)
        let directory = TemporaryDirectory()
        var paths: [String] = [], expected: [[String]] = [], decodedSizes: [Int] = []
        for file in 0..<6 {
            let (lines, tokens) = randomLines(file == 4 ? 0 : 400, using: &rng)
            let bytes = Array((lines.joined(separator: "\n") + (file == 4 ? "" : "\n")).utf8)
            paths.append(directory.write("f\(file).ndjson\(file % 2 == 0 ? ".gz" : "")", file % 2 == 0 ? gzip(bytes) : bytes))
            expected.append(tokens)
            decodedSizes.append(bytes.count)
        }
        for workers in [2, 4, 8] {
            let feed = try feed(paths, workers: workers)
            let received = drain(feed, workers: workers)
            XCTAssertNil(feed.error)
            for item in received { XCTAssertEqual(item.sequence >> 29, item.fileIndex, "six inputs: three bits of input index") }
            for file in 0..<paths.count {
                let mine = received.filter { $0.sequence >> 29 == file }
                XCTAssertEqual(mine.map { $0.sequence & (1 << 29 - 1) }, Array(0..<mine.count), "file \(file): each chunk number once")
                XCTAssertEqual(mine.flatMap(\.tokens), expected[file], "file \(file) with \(workers) workers")
            }
            XCTAssertEqual(feed.bytesDecoded, decodedSizes.reduce(0, +), "decoded bytes of every input")
        }
    }

    /// Whichever worker meets which failure first, the earliest failing input
    /// is the one reported, and every input before it is read whole.
    func testTheEarliestFailingInputIsReportedWhateverTheSchedule() throws {
        let directory = TemporaryDirectory()
        let text = String(repeating: "{\"k\":1}\n", count: 3_000)
        let whole = gzip(Array(text.utf8))
        let paths = [
            directory.write("a.ndjson.gz", whole),
            directory.write("b.ndjson", Array(text.utf8)),
            directory.write("c.ndjson.gz", Array(whole.prefix(whole.count / 2))),  // truncated
            directory.write("d.ndjson", Array(text.utf8)),
            directory.write("e.ndjson.gz", Array(whole.prefix(whole.count / 3))),  // truncated
            directory.write("f.ndjson", Array(text.utf8)),
        ]
        for round in 0..<20 {
            let workers = 2 + round % 5
            let feed = try feed(
                round % 2 == 0 ? paths : Array(paths[3...]) + Array(paths[..<3]), workers: workers,
                spin: Self.spins[round % 3])
            let received = drain(feed, workers: workers)
            guard case .input(let message)? = feed.error else {
                return XCTFail("expected an input error, got \(String(describing: feed.error))")
            }
            let first = round % 2 == 0 ? "c.ndjson.gz" : "e.ndjson.gz"
            XCTAssertTrue(message.contains(first), "round \(round): \(message)")
            // Even rounds: a, b, then c fails; odd rounds: d, then e fails.
            let before = round % 2 == 0 ? 2 : 1
            let lines = received.filter { $0.fileIndex < before }.flatMap(\.tokens).filter { !$0.isEmpty }
            XCTAssertEqual(lines.count, before * 3_000, "round \(round): the inputs before the failure are read whole")
            XCTAssertNil(feed.next(), "the feed stays ended")
        }
    }

    /// 3 000 lines, as one gzip member (`whole`) and as that member with its
    /// CRC-32 damaged (`badCRC`), for the checksum tests.
    private func checksumMembers() -> (text: String, whole: [UInt8], badCRC: [UInt8]) {
        let text = String(repeating: "{\"k\":1}\n", count: 3_000)
        let whole = gzip(Array(text.utf8))
        var badCRC = whole
        badCRC[badCRC.count - 7] ^= 0x04
        return (text, whole, badCRC)
    }

    /// A member whose trailer fails the workers' check ends the run as a
    /// truncation does: the earliest failing input in input order is
    /// reported, whichever kind of failure it has and however the workers
    /// run, and the inputs before it are read whole.
    func testAFailedChecksumIsOrderedWithOtherFailuresByInput() throws {
        let directory = TemporaryDirectory()
        let (text, whole, badCRC) = checksumMembers()
        let good = directory.write("a.ndjson.gz", whole)
        let checksum = directory.write("b.ndjson.gz", badCRC + whole)
        let truncated = directory.write("c.ndjson.gz", Array(whole.prefix(whole.count / 2)))
        let after = directory.write("d.ndjson", Array(text.utf8))
        for round in 0..<12 {
            let workers = 1 + round % 4
            let checksumFirst = round % 2 == 0
            let paths = checksumFirst ? [good, checksum, truncated, after] : [good, truncated, checksum, after]
            let feed = try feed(paths, workers: workers, spin: Self.spins[round % 3])
            let received = drain(feed, workers: workers)
            guard case .input(let message)? = feed.error else {
                return XCTFail("expected an input error, got \(String(describing: feed.error))")
            }
            if checksumFirst {
                XCTAssertTrue(message.contains("b.ndjson.gz") && message.hasSuffix("incorrect data check"), "round \(round): \(message)")
            } else {
                XCTAssertTrue(message.contains("c.ndjson.gz") && message.contains("truncated"), "round \(round): \(message)")
            }
            let lines = received.filter { $0.fileIndex == 0 }.flatMap(\.tokens).filter { !$0.isEmpty }
            XCTAssertEqual(lines.count, 3_000, "round \(round): the input before the failure is read whole")
            XCTAssertNil(feed.next(), "round \(round): the feed stays ended")
        }
    }

    /// An input with more chunks than its number has room for fails the run
    /// with a message naming it (reached here with 3 bits: 7 chunks), and the
    /// chunks before it still came out numbered in order.
    func testAnInputWithMoreChunksThanNumbersFailsNamingIt() throws {
        let directory = TemporaryDirectory()
        let short = directory.write("short.ndjson", Array(String(repeating: "{}\n", count: 10).utf8))
        let long = directory.write("long.ndjson", Array(String(repeating: "{\"k\":1}\n", count: 200).utf8))
        // The same lines as 40 gzip members, whose ends fall in every chunk and
        // in the text read past the last number. Regression: that text and
        // the chunk that found no number were folded under one number (twice
        // the same chunk: a debug assertion; with several workers the first
        // could be lost, and a clean member fail its CRC-32 check).
        // (Nine-byte lines, so that a chunk of 64 bytes always carries a tail.)
        let member = gzip(Array(String(repeating: "{\"k\":12}\n", count: 5).utf8))
        let longGzip = directory.write("long.ndjson.gz", Array(Array(repeating: member, count: 40).joined()))
        for (path, workers) in [(long, 1), (long, 3), (longGzip, 1), (longGzip, 2), (longGzip, 3), (longGzip, 2), (longGzip, 3)] {
            let feed = try feed([short, path], workers: workers, chunkBits: 3)
            let received = drain(feed, workers: workers)
            guard case .input(let message)? = feed.error else {
                return XCTFail("expected an input error, got \(String(describing: feed.error))")
            }
            XCTAssertTrue(message.contains(path) && message.contains("too many chunks"), message)
            XCTAssertEqual(received.filter { $0.fileIndex == 0 }.flatMap(\.tokens).filter { !$0.isEmpty }.count, 10)
            XCTAssertEqual(received.filter { $0.fileIndex == 1 }.count, 7, "seven chunk numbers, then the error")
        }
    }

    func testReadErrorEndsTheFeedForEveryWorker() throws {
        let directory = TemporaryDirectory()
        let good = directory.write("a.ndjson", Array("{}\n{}\n".utf8))
        let whole = gzip(Array(String(repeating: "{\"k\":1}\n", count: 2_000).utf8))
        let truncated = directory.write("b.ndjson.gz", Array(whole.prefix(whole.count / 2)))
        let never = directory.write("c.ndjson", Array("{}\n".utf8))
        let feed = try feed([good, truncated, never], workers: 1)
        var files: Set<Int> = []
        while let chunk = feed.next() {
            files.insert(chunk.fileIndex)
            feed.recycle(chunk)
        }
        guard case .input(let message)? = feed.error else {
            return XCTFail("expected an input error, got \(String(describing: feed.error))")
        }
        XCTAssertTrue(message.contains("b.ndjson.gz"), message)
        XCTAssertFalse(files.contains(2), "nothing is read after the failed input")
        XCTAssertNil(feed.next(), "the feed stays ended")
    }

    /// The message of an input error, nil for none.
    private static func message(_ error: AnalyzeError?) -> String? {
        guard let error else { return nil }
        guard case .input(let message) = error else { return "not an input error: \(error)" }
        return message
    }

    /// A plain input has no trailers: its chunks carry no checksum for the
    /// workers to fold, so once it was read nothing is left unchecked, beside
    /// a gzip input that was checked whole (found by mutation testing: plain
    /// text counted as waiting for a member end passed).
    func testAPlainInputLeavesNoBytesUnchecked() throws {
        let directory = TemporaryDirectory()
        let text = Array((0..<40).map { "line \($0)\n" }.joined().utf8)
        let plain = directory.write("plain.ndjson", text)
        let packed = directory.write("packed.ndjson.gz", gzip(text))
        for workers in [1, 2] {
            let feed = try feed([plain, packed], workers: workers)
            _ = drain(feed, workers: workers)
            XCTAssertNil(feed.error)
            XCTAssertEqual(feed.bytesUnchecked, 0, "\(workers) worker(s)")
        }
    }

    /// The members' trailers are checked by the workers from the chunks'
    /// text (``ChecksumLedger``), not while inflating. For members cut
    /// anywhere in random lines (some longer than a chunk, streamed past as
    /// markers; some inputs with a byte order mark, some members empty),
    /// with one member's CRC-32, ISIZE or both damaged, or an earlier
    /// member's CRC-32 damaged and the last member truncated, one worker
    /// reports exactly the error of the inflater's own check (its words, its
    /// offset: the damaged trailer's first byte, and the earlier member
    /// first). Several workers, whose handoffs move where inflate calls
    /// begin, report the same error, offset included (for a trailer since the
    /// forty-sixth session: before it, where the call that read the trailer
    /// began, which moved with the threads). A clean input is checked to its
    /// last byte.
    func testTrailersCheckedByTheWorkersFailAsTheInflatersOwnCheck() throws {
        var rng = SplitMix64(2026)
        let directory = TemporaryDirectory()
        var failures = 0
        for round in 0..<60 {
            let (lines, _) = randomLines(30, using: &rng)
            var text = Array(lines.joined(separator: "\n").utf8) + [0x0A]
            if round % 7 == 0 { text = [0xEF, 0xBB, 0xBF] + text }
            let cuts = (0..<Int.random(in: 0...4, using: &rng)).map { _ in Int.random(in: 0...text.count, using: &rng) }.sorted()
            var members: [[UInt8]] = []
            var start = 0
            for cut in cuts + [text.count] {
                members.append(gzip(Array(text[start..<cut])))
                start = cut
            }
            let damaged = Int.random(in: 0..<members.count, using: &rng)
            switch round % 5 {
            case 1: members[damaged][members[damaged].count - 6] ^= 0x20  // CRC-32
            case 2: members[damaged][members[damaged].count - 2] ^= 0x01  // ISIZE
            case 3:
                members[damaged][members[damaged].count - 8] ^= 0x01
                members[damaged][members[damaged].count - 3] ^= 0x40
            case 4:
                members[0][members[0].count - 5] ^= 0x08
                if members.count > 1 { members[members.count - 1].removeLast(members[members.count - 1].count / 2) }
            default: break
            }
            let path = directory.write("members-\(round).ndjson.gz", members.flatMap { $0 })
            let inflaters = try feed([path], workers: 1, checksTrailersFromChunks: false)
            _ = drain(inflaters, workers: 1)
            let expected = Self.message(inflaters.error)
            if expected != nil { failures += 1 }
            let trailerDamaged = round % 5 == 4 ? 0 : damaged
            let trailerStart = members[...trailerDamaged].reduce(0) { $0 + $1.count } - 8
            if (1...4).contains(round % 5) {
                let words = round % 5 == 2 ? "incorrect length check" : "incorrect data check"
                XCTAssertEqual(expected?.hasSuffix("at byte offset \(trailerStart): \(words)"), true,
                               "round \(round): \(expected ?? "no error")")
            }
            let one = try feed([path], workers: 1)
            _ = drain(one, workers: 1)
            XCTAssertEqual(Self.message(one.error), expected, "round \(round), \(members.count) members")
            if expected == nil { XCTAssertEqual(one.bytesUnchecked, 0, "round \(round): every byte checked") }

            let workers = 2 + round % 3
            let several = try feed([path], workers: workers, spin: Self.spins[round % 3])
            _ = drain(several, workers: workers)
            XCTAssertEqual(Self.message(several.error), expected, "round \(round), \(workers) workers")
            if expected == nil { XCTAssertEqual(several.bytesUnchecked, 0, "round \(round): every byte checked") }
        }
        XCTAssertGreaterThan(failures, 40, "most rounds damage a member")
    }

    /// Regression (found by the gzip fuzzer): damage right after a member
    /// that ended in a call that produced no text (an empty member) was
    /// held back for the next call, but the call returned 0, the end of the
    /// text: the run ended with exit 0 and the damage unreported. Now such a
    /// call throws at once, its member ends still taken by the reader.
    func testDamageAfterAMemberEndedWithoutTextIsStillReported() throws {
        let directory = TemporaryDirectory()
        let empty = gzip([])
        var badHeader = gzip([])
        badHeader[3] = 0x40  // a reserved flag bit
        var emptyWithBadCRC = gzip([])
        emptyWithBadCRC[emptyWithBadCRC.count - 8] ^= 0x01
        let line = Array("{\"event_id\":\"e1\"}\n".utf8)
        let cases: [(name: String, bytes: [UInt8], expected: String)] = [
            ("empty-then-bytes", empty + Array("garbage".utf8), "at byte offset 20: unexpected bytes after a gzip member"),
            ("empty-then-bad-header", empty + badHeader, "at byte offset 20: invalid gzip header"),
            ("bad-crc-then-bytes", emptyWithBadCRC + Array("x".utf8), "at byte offset 12: incorrect data check"),
            // Text first: the damage waits for the next call (as before).
            ("line-empty-then-bytes", gzip(line) + empty + [0x01], "unexpected bytes after a gzip member"),
        ]
        for (name, bytes, expected) in cases {
            let path = directory.write("\(name).ndjson.gz", bytes)
            let inflaters = try feed([path], workers: 1, checksTrailersFromChunks: false)
            _ = drain(inflaters, workers: 1)
            let reference = try XCTUnwrap(Self.message(inflaters.error), name)
            XCTAssertTrue(reference.contains(expected), "\(name): \(reference)")
            for workers in 1...2 {
                let deferred = try feed([path], workers: workers)
                _ = drain(deferred, workers: workers)
                XCTAssertEqual(Self.message(deferred.error), reference, "\(name), \(workers) worker(s)")
            }
        }
    }

    /// Within one input, a member whose trailer fails the workers' check is
    /// reported before damage after it, however the workers run: the check
    /// names the earlier place (here the second member is cut short in its
    /// header, so its reader fails at once).
    func testAFailedChecksumComesBeforeLaterDamageInTheSameInput() throws {
        let directory = TemporaryDirectory()
        let (_, whole, badCRC) = checksumMembers()
        let path = directory.write("b.ndjson.gz", badCRC + Array(whole.prefix(5)))
        for round in 0..<60 {
            let workers = 2 + round % 3
            let feed = try feed([path], workers: workers, spin: Self.spins[round % 3])
            _ = drain(feed, workers: workers)
            guard case .input(let message)? = feed.error else {
                return XCTFail("expected an input error, got \(String(describing: feed.error))")
            }
            XCTAssertTrue(message.hasSuffix("incorrect data check"), "round \(round), \(workers) workers: \(message)")
        }
    }

    /// Once a member's trailer fails the workers' check, the rest of that
    /// input is not read: one worker gets no chunk of it after the one
    /// that reached the failing member's end.
    func testAnInputIsNotReadOnAfterItsChecksumFailed() throws {
        let directory = TemporaryDirectory()
        let (_, whole, badCRC) = checksumMembers()
        let path = directory.write("b.ndjson.gz", badCRC + whole + whole)
        for spin in Self.spins {
            let feed = try feed([path], workers: 1, spin: spin)
            let received = drain(feed, workers: 1)
            guard case .input(let message)? = feed.error else {
                return XCTFail("expected an input error, got \(String(describing: feed.error))")
            }
            XCTAssertTrue(message.hasSuffix("incorrect data check"), message)
            let lines = received.flatMap(\.tokens).filter { !$0.isEmpty }
            XCTAssertLessThan(lines.count, 3_000 + Self.capacity, "the input was read on after its checksum failed")
        }
    }
}

/// One chunk as a test worker saw it.
private struct Item {
    var sequence: Int
    var fileIndex: Int
    var tokens: [String]
}

/// Items appended from several threads under a lock.
private final class Collected: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [Item] = []

    func append(_ item: Item) {
        lock.lock()
        stored.append(item)
        lock.unlock()
    }

    var items: [Item] {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}
