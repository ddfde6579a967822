import Foundation
import XCTest
@testable import AnalyzeKit
#if canImport(Glibc)
import Glibc
#endif

/// Reading inputs (SPEC §1): gzip detection, members, damage, lines.
final class InputTests: XCTestCase {
    private let lines = (0..<50).map { i in
        event("e\(i)", i % 2 == 0 ? "sdk_activate" : "logout", "2026-11-0\(1 + i % 5)T10:00:00Z",
              device: "d\(i % 7)", profile: "p\(i)")
    }
    private var text: [UInt8] { Array(lines.map { $0 + "\n" }.joined().utf8) }

    private func run(_ paths: [String], maxLineBytes: Int = 1 << 20, threads: Int = 2) throws -> AnalysisResult {
        var options = AnalyzeOptions(paths: paths, threads: threads)
        options.maxLineBytes = maxLineBytes
        return try Analyzer(options: options).analyze()
    }

    private func expectInputError(_ paths: [String], mentioning parts: [String], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try run(paths), file: file, line: line) { error in
            guard let error = error as? AnalyzeError, case .input(let message) = error else {
                return XCTFail("expected an input error, got \(error)", file: file, line: line)
            }
            for part in parts { XCTAssertTrue(message.contains(part), "\(message) lacks \(part)", file: file, line: line) }
        }
    }

    func testGzipIsDetectedByContentNotName() throws {
        let directory = TemporaryDirectory()
        let plain = try run([directory.write("plain.gz", text)])
        let packed = try run([directory.write("packed.txt", gzip(text))])
        XCTAssertEqual(plain.installsCSV(), packed.installsCSV())
        XCTAssertEqual(packed.quality.bytesDecoded, text.count)
        XCTAssertLessThan(packed.quality.bytesRead, text.count)
        XCTAssertEqual(packed.quality.events, 50)
    }

    func testMultiMemberGzipWithLinesSpanningMembersAndZeroPadding() throws {
        let directory = TemporaryDirectory()
        let reference = try run([directory.write("plain.ndjson", text)])
        for cut in [1, 37, text.count / 2, text.count - 1] {
            let members = gzip(Array(text[..<cut])) + gzip([]) + gzip(Array(text[cut...])) + [0, 0, 0, 0]
            let result = try run([directory.write("members-\(cut).gz", members)])
            XCTAssertEqual(result.installsCSV(), reference.installsCSV())
            XCTAssertEqual(result.profileSwitchesCSV(), reference.profileSwitchesCSV())
            XCTAssertEqual(result.quality.lines, 50)
            XCTAssertEqual(result.quality.bytesRead, members.count)
        }
    }

    func testTruncatedGzipIsAnInputErrorWithOffset() {
        let directory = TemporaryDirectory()
        let packed = gzip(text)
        for cut in [2, 10, packed.count / 2, packed.count - 4, packed.count - 1] {
            let path = directory.write("cut-\(cut).gz", Array(packed[..<cut]))
            expectInputError([path], mentioning: [path, "byte offset"])
        }
    }

    func testDamagedGzipIsAnInputError() {
        let directory = TemporaryDirectory()
        var badCRC = gzip(text)
        badCRC[badCRC.count - 6] ^= 0xFF
        expectInputError([directory.write("crc.gz", badCRC)], mentioning: ["crc.gz", "byte offset"])
        var badSize = gzip(text)
        badSize[badSize.count - 2] ^= 0x01
        expectInputError([directory.write("isize.gz", badSize)], mentioning: ["isize.gz"])
        expectInputError([directory.write("garbage.gz", gzip(text) + Array("junk".utf8))], mentioning: ["garbage.gz", "byte offset"])
        expectInputError([directory.write("zeros-then-junk.gz", gzip(text) + [0, 0, 7])], mentioning: ["zeros-then-junk.gz"])
        var body = gzip(text)
        body[body.count / 2] ^= 0x55
        body[body.count / 2 + 1] ^= 0xAA
        expectInputError([directory.write("body.gz", body)], mentioning: ["body.gz"])
    }

    func testMissingPathIsAnInputError() {
        expectInputError(["/nonexistent/events.ndjson"], mentioning: ["/nonexistent/events.ndjson"])
    }

    func testDirectoriesExpandInByteOrderSkippingOthers() throws {
        let directory = TemporaryDirectory()
        directory.write("b.ndjson", lines: ["[1]"])
        directory.write("a.jsonl.gz", gzip(Array("[2]\n".utf8)))
        directory.write("C.ndjson", lines: ["[3]"])
        directory.write(".hidden.ndjson", lines: ["[4]"])
        directory.write("notes.txt", lines: ["[5]"])
        directory.write("x.NDJSON", lines: ["[6]"])
        try FileManager.default.createDirectory(atPath: directory.path + "/sub.ndjson", withIntermediateDirectories: true)
        let result = try run([directory.path])
        XCTAssertEqual(result.quality.files, 3)
        XCTAssertEqual(result.rejects.map(\.file), [
            directory.path + "/C.ndjson", directory.path + "/a.jsonl.gz", directory.path + "/b.ndjson",
        ])
        let slash = try run([directory.path + "/"])
        XCTAssertEqual(slash.rejects.first?.file, directory.path + "/C.ndjson")
        // A skipped name that looks like an export (here, in capitals) is
        // named in a warning; notes.txt and the dot-file are not. (Every line
        // here is a reject, which is the second warning.)
        XCTAssertEqual(result.skippedLookalikes.map(\.directory), [directory.path])
        XCTAssertEqual(result.skippedLookalikes.map(\.names), [["x.NDJSON"]])
        XCTAssertEqual(result.warnings, [
            "skipped 1 file in '\(directory.path)' that looks like an export but is not named "
                + "*.ndjson, *.ndjson.gz, *.jsonl, *.jsonl.gz ('x.NDJSON'); a directory contributes only those",
            "every one of the 3 lines was rejected (not_an_object 3); is this an Adapty event export? "
                + "rejects.csv says which line failed and why",
        ])
    }

    /// A directory named more than once is read each time, as a file is, and
    /// its skipped look-alikes are warned about once, however it is spelled.
    /// Regression: `analyze d d/` warned twice.
    func testADirectoryNamedTwiceIsWarnedAboutOnce() throws {
        let directory = TemporaryDirectory()
        directory.write("a.ndjson", lines: ["[1]"])
        directory.write("b.ndjson.xz", lines: ["[2]"])
        let link = directory.path + "-link"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: directory.path)
        defer { try? FileManager.default.removeItem(atPath: link) }
        let result = try run([directory.path, directory.path + "/", link])
        XCTAssertEqual(result.quality.files, 3)
        XCTAssertEqual(result.rejects.map(\.file), [
            directory.path + "/a.ndjson", directory.path + "/a.ndjson", link + "/a.ndjson",
        ])
        XCTAssertEqual(result.skippedLookalikes.map(\.directory), [directory.path])
        XCTAssertEqual(result.skippedLookalikes.map(\.names), [["b.ndjson.xz"]])
        XCTAssertEqual(result.warnings.filter { $0.hasPrefix("skipped") }.count, 1)
        // Another directory's look-alikes are still named.
        let other = TemporaryDirectory()
        other.write("c.jsonl", lines: ["[3]"])
        other.write("d.JSONL", lines: ["[4]"])
        let both = try run([directory.path + "/", other.path, directory.path])
        XCTAssertEqual(both.skippedLookalikes.map(\.directory), [directory.path + "/", other.path])
        XCTAssertEqual(both.skippedLookalikes.map(\.names), [["b.ndjson.xz"], ["d.JSONL"]])
    }

    /// Names a directory skips that end in `.ndjson` or `.jsonl`, in any
    /// case, or in those and extensions of compression, archives and
    /// downloads, are exports in another form, or still being written; others
    /// are not. Regression: files beside exports (checksums, schemas, notes)
    /// were taken for them.
    func testLookalikeNamesAreThoseThatMentionNDJSONOrJSONL() {
        for name in ["b.ndjson.xz", "c.NDJSON.GZ", "day.ndjson.gz.part", "events.jsonl.zst", "x.Jsonl", ".ndjson",
                     "a.ndjson.tar.gz", "b.ndjson.XZ.part", "c.jsonl.gz.crdownload"] {
            XCTAssertTrue(InputFile.isLookalike(Array(name.utf8)), name)
        }
        for name in ["notes.txt", "events.json.gz", "ndjson", "a.ndjso", "", "jsonl.txt",
                     "day1.ndjson.gz.sha256", "events.ndjson.schema.json", "README.jsonl.md", "a.ndjson.", "a.ndjson..gz",
                     "a.ndjsonl", "b.ndjson.gz.1"] {
            XCTAssertFalse(InputFile.isLookalike(Array(name.utf8)), name)
        }
    }

    /// The last `.ndjson` or `.jsonl` in a name is the one whose tail
    /// decides: `events.ndjson.ndjson.zst` is a zstd export, whatever came
    /// before (found by mutation testing: the first one deciding passed).
    func testTheLastStemInALookalikeNameDecides() {
        XCTAssertTrue(InputFile.isLookalike(Array("events.ndjson.ndjson.zst".utf8)))
        XCTAssertTrue(InputFile.isLookalike(Array("day.jsonl.jsonl.gz.part".utf8)))
        XCTAssertFalse(InputFile.isLookalike(Array("events.ndjson.zst.ndjson.sha256".utf8)))
    }

    /// SPEC §1: a directory's files in byte-wise name order, not Unicode
    /// order. A decomposed "é" (`65 CC 81`) sorts before "f"; a String sort
    /// (canonical equivalence, as Swift compares) would put it after "f" and
    /// call it equal to the precomposed "é" (`C3 A9`).
    func testDirectoriesExpandInByteOrderForNamesBeyondASCII() throws {
        let directory = TemporaryDirectory()
        let names: [[UInt8]] = [
            [0xF0, 0x9F, 0x98, 0x80],  // 😀
            [0xEF, 0xBD, 0x9A],  // fullwidth z
            [0xC3, 0xA9],  // é, precomposed
            [0x66],  // f
            [0x65, 0xCC, 0x81],  // e + combining acute
        ]
        for (index, name) in names.enumerated() {
            // Created by their bytes: no layer in between may normalize them.
            let path = Array(directory.path.utf8) + [0x2F] + name + Array(".ndjson".utf8)
            let fd = (path.map { CChar(bitPattern: $0) } + [0]).withUnsafeBufferPointer { open($0.baseAddress!, O_CREAT | O_WRONLY, 0o644) }
            XCTAssertGreaterThanOrEqual(fd, 0)
            _ = Array("[\(index)]\n".utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            close(fd)
        }
        let result = try run([directory.path])
        XCTAssertEqual(result.quality.files, 5)
        let prefix = Array(directory.path.utf8) + [0x2F]
        XCTAssertEqual(result.rejects.map { Array($0.file.utf8) },
                       names.sorted { $0.lexicographicallyPrecedes($1) }.map { prefix + $0 + Array(".ndjson".utf8) })
        XCTAssertEqual(result.rejects.map(\.line), [1, 1, 1, 1, 1])
    }

    /// SPEC §1: a blank line holds only spaces, tabs and `\r`. Other
    /// whitespace or control bytes make a line that is counted and rejected.
    func testOnlySpaceTabAndCarriageReturnMakeABlankLine() throws {
        let directory = TemporaryDirectory()
        let content = Array((lines[0] + "\n \t\r\n\u{0C}\n\u{0B}\n\u{00}\n \u{0C} \n" + lines[1] + "\n").utf8)
        let result = try run([directory.write("blank.ndjson", content)])
        XCTAssertEqual(result.quality.lines, 6)
        XCTAssertEqual(result.quality.events, 2)
        XCTAssertEqual(result.rejects.map(\.line), [3, 4, 5, 6])
        XCTAssertEqual(result.rejects.map(\.reason), [.invalidJSON, .invalidJSON, .invalidJSON, .invalidJSON])
    }

    /// SPEC §1: only the very start of a file's decoded text may hold a BOM
    /// that is dropped; one at the start of a later gzip member is content
    /// (the members form one text), so its line is `invalid_json`.
    func testABOMAtALaterMembersStartIsContent() throws {
        let directory = TemporaryDirectory()
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        let first = Array((lines[0] + "\n").utf8), second = Array((lines[1] + "\n").utf8)
        let result = try run([directory.write("members.ndjson.gz", gzip(bom + first) + gzip(bom + second))])
        XCTAssertEqual(result.quality.lines, 2)
        XCTAssertEqual(result.quality.events, 1)
        XCTAssertEqual(result.rejects.map(\.line), [2])
        XCTAssertEqual(result.rejects.map(\.reason), [.invalidJSON])
    }

    /// SPEC §1: only the three bytes of a BOM (`EF BB BF`) are dropped; a
    /// file that starts with another character whose UTF-8 begins `EF BB`
    /// (U+FEC0, `EF BB 80`) keeps it, so its first line is `invalid_json`.
    /// Regression (mutation testing): a check that ignored the third byte
    /// passed every test.
    func testOnlyATrueBOMIsDropped() throws {
        let directory = TemporaryDirectory()
        let text = Array((lines[0] + "\n" + lines[1] + "\n").utf8)
        for (lead, dropped) in [([0xEF, 0xBB, 0xBF] as [UInt8], true), ([0xEF, 0xBB, 0x80], false), ([0xEF, 0xBF, 0xBB], false)] {
            for gzipped in [false, true] {
                let content = lead + text
                let result = try run([directory.write("lead.ndjson", gzipped ? gzip(content) : content)])
                let what = "\(lead), gzip \(gzipped)"
                XCTAssertEqual(result.quality.lines, 2, what)
                XCTAssertEqual(result.quality.events, dropped ? 2 : 1, what)
                XCTAssertEqual(result.rejects.map(\.line), dropped ? [] : [1], what)
                XCTAssertEqual(result.rejects.map(\.reason), dropped ? [] : [.invalidJSON], what)
            }
        }
    }

    func testBOMCRLFAndBlankLinesKeepPhysicalLineNumbers() throws {
        let directory = TemporaryDirectory()
        let content = [0xEF, 0xBB, 0xBF] + Array((lines[0] + "\r\n\r\n \t\n[]\r\n" + lines[1] + "\r\n{bad}").utf8)
        let result = try run([directory.write("crlf.ndjson", content)])
        XCTAssertEqual(result.quality.lines, 4)
        XCTAssertEqual(result.quality.events, 2)
        XCTAssertEqual(result.quality.bytesDecoded, content.count)
        XCTAssertEqual(result.rejects.map(\.line), [4, 6])
        XCTAssertEqual(result.rejects.map(\.reason), [.notAnObject, .invalidJSON])
    }

    func testLineLengthLimitIsInclusiveAndExcludesTheLineEnd() throws {
        let directory = TemporaryDirectory()
        let line = lines[0]
        let path = directory.write("limit.ndjson", Array((line + "\r\n" + line.replacingOccurrences(of: "e0", with: "f0") + "x\n").utf8))
        let result = try run([path], maxLineBytes: line.utf8.count)
        XCTAssertEqual(result.quality.events, 1)
        XCTAssertEqual(result.rejects.map(\.reason), [.lineTooLong])
        XCTAssertEqual(result.rejects.map(\.line), [2])
    }

    /// A `\r` belongs to the line end only before a `\n` (SPEC §2): on a
    /// last line without a line end it is the line's own byte, counted by the
    /// limit, and JSON whitespace after the object.
    func testACarriageReturnEndingTheLastLineWithoutALineEndIsPartOfTheLine() throws {
        let directory = TemporaryDirectory()
        let line = lines[0]
        let path = directory.write("last-cr.ndjson", Array((line + "\n" + line.replacingOccurrences(of: "e0", with: "f0") + "\r").utf8))
        let exact = try run([path], maxLineBytes: line.utf8.count)
        XCTAssertEqual(exact.quality.lines, 2)
        XCTAssertEqual(exact.quality.events, 1)
        XCTAssertEqual(exact.rejects.map(\.reason), [.lineTooLong])
        XCTAssertEqual(exact.rejects.map(\.line), [2])
        let roomy = try run([path], maxLineBytes: line.utf8.count + 1)
        XCTAssertEqual(roomy.quality.events, 2)
        XCTAssertEqual(roomy.rejects.count, 0)
    }

    /// SPEC §2 rejects, 1: `line_too_long` is checked after the blank-line
    /// test, so a blank line longer than `--max-line-bytes` is skipped, not
    /// counted or rejected: just past the limit (held in the chunk), and far
    /// past it (streamed past). Regression (mutation testing): the two
    /// checks swapped for lines held in the chunk passed every test.
    func testABlankLineLongerThanTheLimitIsSkippedNotRejected() throws {
        let directory = TemporaryDirectory()
        let limit = max(lines[0].utf8.count, lines[1].utf8.count)
        let blanks = [String(repeating: " ", count: limit + 1), String(repeating: " \t", count: limit / 2 + 20) + "\r",
                      String(repeating: "\t", count: limit + 63), String(repeating: " ", count: 3 * limit + 200)]
        let text = Array(([lines[0]] + blanks + [lines[1], "x"]).joined(separator: "\n").utf8)
        for gzipped in [false, true] {
            for threads in [1, 2] {
                let result = try run([directory.write("blank-long.ndjson", gzipped ? gzip(text) : text)],
                                     maxLineBytes: limit, threads: threads)
                let what = "gzip \(gzipped), threads \(threads)"
                XCTAssertEqual(result.quality.lines, 3, what)
                XCTAssertEqual(result.quality.events, 2, what)
                XCTAssertEqual(result.quality.rejected, 1, what)
                XCTAssertEqual(result.rejects.map(\.line), [7], what)
                XCTAssertEqual(result.rejects.map(\.reason), [.invalidJSON], what)
            }
        }
    }

    func testHugeLinesAreStreamedPastNotHeld() throws {
        let directory = TemporaryDirectory()
        let huge = [UInt8](repeating: UInt8(ascii: "a"), count: 9 << 20)
        let blank = [UInt8](repeating: UInt8(ascii: " "), count: 9 << 20)
        let content = Array((lines[0] + "\n").utf8) + huge + [0x0A] + blank + [0x0A] + Array((lines[1] + "\n").utf8) + huge
        let result = try run([directory.write("huge.ndjson", gzip(content))])
        XCTAssertEqual(result.quality.lines, 4)
        XCTAssertEqual(result.quality.events, 2)
        XCTAssertEqual(result.rejects.map(\.line), [2, 5])
        XCTAssertEqual(result.rejects.map(\.reason), [.lineTooLong, .lineTooLong])
    }

    /// An `sdk_activate` whose line is about `padding` bytes long.
    private func paddedEvent(_ id: String, padding: Int) -> String {
        #"{"event_id":"\#(id)","event_type":"sdk_activate","timestamp":"2026-11-01T00:00:00Z","device_id":"d\#(id)","profile_id":"p","x":""#
            + String(repeating: "a", count: padding) + #""}"#
    }

    /// `lines` read as plain text and gzipped, with each thread count: the
    /// results, one per way.
    private func runLongLines(_ lines: [String], maxLineBytes: Int, threads: [Int] = [2]) throws -> [AnalysisResult] {
        let directory = TemporaryDirectory()
        let content = Array((lines.joined(separator: "\n") + "\n").utf8)
        var results: [AnalysisResult] = []
        for (index, input) in [content, gzip(content)].enumerated() {
            let path = directory.write("long-\(index).ndjson", input)
            for count in threads { results.append(try run([path], maxLineBytes: maxLineBytes, threads: count)) }
        }
        return results
    }

    /// A line longer than a chunk (1 MiB) that `--max-line-bytes` allows is an
    /// event: its chunk grows for it, doubling, up to the limit (since the
    /// forty-second session; before, every chunk was as large as the limit,
    /// capped at 1 GiB, so a limit above that rejected longer lines).
    func testLinesLongerThanAChunkWithinTheLimitAreEvents() throws {
        let limit = 5 << 20
        let long = paddedEvent("long", padding: (3 << 20) + 17)      // grows one chunk to 4 MiB
        let longest = paddedEvent("longest", padding: limit - 150)    // the limit, nearly
        let exact = String(decoding: paddedEvent("exact", padding: limit).utf8.prefix(limit), as: UTF8.self)  // invalid JSON, not too long
        let over = paddedEvent("over", padding: limit)                // the limit + about 120
        for result in try runLongLines([lines[0], long, lines[1], longest + "\r", exact, over, lines[2]], maxLineBytes: limit) {
            XCTAssertEqual(result.quality.lines, 7)
            XCTAssertEqual(result.quality.events, 5)
            XCTAssertEqual(result.rejects.map(\.line), [5, 6])
            XCTAssertEqual(result.rejects.map(\.reason), [.invalidJSON, .lineTooLong])
        }
    }

    /// A line of exactly `--max-line-bytes`, longer than a chunk and ending
    /// in `\r\n`, is an event (SPEC: the limit is on the line without its
    /// line end). The chunk grown for it must hold the line end too
    /// (`--max-line-bytes` + 64, ``Analyzer``): grown to one byte more, the
    /// line and its CR filled it with no `\n`, and the line was read as
    /// `line_too_long` (mutation testing, round 8).
    func testALineOfExactlyTheLimitEndingInCRLFInAGrownChunkIsAnEvent() throws {
        let limit = 2 << 20
        let exact = paddedEvent("exact", padding: limit - paddedEvent("exact", padding: 0).utf8.count)
        XCTAssertEqual(exact.utf8.count, limit)
        for result in try runLongLines([lines[0], exact + "\r", lines[1]], maxLineBytes: limit) {
            XCTAssertEqual(result.quality.lines, 3)
            XCTAssertEqual(result.quality.events, 3)
            XCTAssertEqual(result.rejects.count, 0)
        }
    }

    /// A chunk grown for a long line is cut after it with more than a fresh
    /// chunk's capacity of the next line read: that rest moves to a chunk
    /// made as large. (Found re-reading the change that made chunks grow, the
    /// same session: the rest was copied into a 1 MiB chunk whatever its
    /// length, past the buffer's end; this test then crashes.)
    func testTheRestAfterALongLineMayBeLongerThanAFreshChunk() throws {
        // 5 MiB, then 2.5 MiB: the chunk grows to 8 MiB for the first and,
        // with no other worker to yield to, is cut only when full, with 3 MiB
        // of the second line after the first's line end.
        let longLines = [paddedEvent("five", padding: 5 << 20), paddedEvent("two-and-a-half", padding: 5 << 19), lines[0]]
        for result in try runLongLines(longLines, maxLineBytes: 7 << 20, threads: [1, 2]) {
            XCTAssertEqual(result.quality.lines, 3)
            XCTAssertEqual(result.quality.events, 3)
            XCTAssertEqual(result.rejects.count, 0)
        }
    }

    /// SPEC §1: an input is gzip when it starts with `1f 8b`, however its
    /// bytes arrive: a pipe (here a FIFO) that delivers the first byte alone
    /// is still gzip. Regression (mutation testing: a check that looked at
    /// the first read only passed every test).
    func testGzipIsDetectedWhenItsFirstByteArrivesAlone() throws {
        let directory = TemporaryDirectory()
        let fifo = directory.path + "/slow.ndjson.gz"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let bytes = gzip(text)
        let writer = Thread {
            let descriptor = open(fifo, O_WRONLY)
            guard descriptor >= 0 else { return }
            bytes.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let n = write(descriptor, buffer.baseAddress! + offset, offset == 0 ? 1 : buffer.count - offset)
                    if n <= 0 { break }
                    offset += n
                    if offset == 1 { usleep(200_000) }
                }
            }
            close(descriptor)
        }
        writer.start()
        let result = try run([fifo])
        XCTAssertEqual(result.quality.bytesRead, bytes.count)
        XCTAssertEqual(result.quality.bytesDecoded, text.count)
        XCTAssertEqual(result.quality.events, 50)
        XCTAssertEqual(result.rejects.count, 0)
    }

    /// The `\r` before `\n` is not counted by the limit on a line that is
    /// not an object or not JSON either, which takes another path than an
    /// event's (found by mutation testing).
    func testLineLengthLimitExcludesTheCRLFOfALineThatIsNotAnObject() throws {
        let directory = TemporaryDirectory()
        let path = directory.write("crlf-array.ndjson", Array("[1,2]\r\n{bad}\r\n".utf8))
        let result = try run([path], maxLineBytes: 5)
        XCTAssertEqual(result.rejects.map(\.reason), [.notAnObject, .invalidJSON])
    }

    /// Zero padding longer than the inflater's input buffer (256 KiB) is
    /// read to its end: a non-zero byte after it is still damage (SPEC §1;
    /// found by mutation testing).
    func testABytePastZeroPaddingLongerThanTheInputBufferIsDamage() {
        let directory = TemporaryDirectory()
        let member = gzip(text)
        let path = directory.write("padded.gz", member + [UInt8](repeating: 0, count: 400_000) + Array("x".utf8))
        expectInputError([path], mentioning: ["padded.gz", "at byte offset \(member.count + 400_000)",
                                              "unexpected bytes after a gzip member"])
    }

    /// Without deferred trailer checks (the inflater checks each member
    /// itself), a member whose CRC-32 does not match fails the read in which
    /// it ends, even when that read had decoded a good member's text before
    /// it: the text is not handed out first (found by mutation testing).
    func testAnInflaterThatChecksItsOwnTrailersFailsTheReadThatEndsTheMember() throws {
        let directory = TemporaryDirectory()
        let good = gzip(text)
        var bad = gzip(text)
        bad[bad.count - 8] ^= 0x01
        let path = directory.write("crc.gz", good + bad)
        let source = try DecodedTextSource(InputFile(displayName: path, location: .path(path)))
        var buffer = [UInt8](repeating: 0, count: 2 * text.count + 1_000)
        XCTAssertThrowsError(try buffer.withUnsafeMutableBytes { try source.read(into: $0) }) { error in
            XCTAssertEqual(error as? AnalyzeError, .input(
                "corrupt gzip in '\(path)' at byte offset \(good.count + bad.count - 8): incorrect data check"))
        }
    }

    /// Messages list up to three names in full: "…" only when there are more.
    func testListedNamesGetAnEllipsisOnlyBeyondThree() {
        XCTAssertEqual(InputFile.listed(["a", "b"]), "'a', 'b'")
        XCTAssertEqual(InputFile.listed(["a", "b", "c"]), "'a', 'b', 'c'")
        XCTAssertEqual(InputFile.listed(["a", "b", "c", "d"]), "'a', 'b', 'c', …")
    }

    func testSameFileTwiceIsReadTwice() throws {
        let directory = TemporaryDirectory()
        let path = directory.write("events.ndjson", text)
        let once = try run([path])
        let twice = try run([path, path])
        XCTAssertEqual(twice.quality.files, 2)
        XCTAssertEqual(twice.quality.duplicates, 50)
        XCTAssertEqual(twice.quality.conflictingDuplicates, 0)
        XCTAssertEqual(twice.installsCSV(), once.installsCSV())
        // Line numbers start again at 1 in the second copy: the line is the
        // physical line in that input's text, even under the same name
        // (regression, mutation testing: numbering by name passed).
        let withReject = directory.write("rejects.ndjson", lines: ["not json", lines[0], "[]"])
        let rejects = try run([withReject, withReject]).rejects
        XCTAssertEqual(rejects.map(\.file), [withReject, withReject, withReject, withReject])
        XCTAssertEqual(rejects.map(\.line), [1, 3, 1, 3])
        XCTAssertEqual(rejects.map(\.reason), [.invalidJSON, .notAnObject, .invalidJSON, .notAnObject])
    }
}
