import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension FailureMatrixTests {
    // MARK: Damaged gzip

    /// About 2 KB of gzip (one member, from the system's gzip) and the text it holds:
    /// a small generated export with noise (every reject reason, duplicates, CRLF).
    private func smallGzip(_ scratch: Scratch) throws -> (gz: Data, text: Data) {
        let generator = AnalyzeBinary.productsDirectory.appendingPathComponent("generate-events").path
        let path = scratch.path + "/small.ndjson"
        let made = try Child.run(generator, ["--events", "30", "--seed", "3", "--noise", "0.1", "--out", path])
        XCTAssertEqual(made.exitCode, 0, made.stderr)
        let text = try Data(contentsOf: URL(fileURLWithPath: path))
        let gz = try Child.shell("gzip -9 -n -c", stdin: text)
        XCTAssertGreaterThan(gz.count, 1500)
        return (gz, text)
    }

    /// Damage inside a member's deflate data is named where the decoder
    /// stopped: at or after the first damaged byte, the same with one worker
    /// or two. Regression: it was named where the read that found it began,
    /// up to 256 KiB before the damage, and that moved with the thread count.
    func testDamageInsideALargeMemberIsNamedWhereTheDecoderStopped() throws {
        let scratch = Scratch()
        let generator = AnalyzeBinary.productsDirectory.appendingPathComponent("generate-events").path
        let plain = scratch.path + "/large.ndjson"
        let made = try Child.run(generator, ["--events", "12000", "--seed", "5", "--out", plain])
        XCTAssertEqual(made.exitCode, 0, made.stderr)
        let gz = try Child.shell("gzip -6 -n -c", stdin: try Data(contentsOf: URL(fileURLWithPath: plain)))
        XCTAssertGreaterThan(gz.count, 600_000, "several 256 KiB reads")
        let out = scratch.path + "/out"
        var named = 0
        // 2 KiB of scrambled bytes past the first read, at 20 places: the decoder
        // finds some of them (8 with ISA-L), the member's CRC-32 the rest.
        for (index, first) in stride(from: 270_000, to: gz.count - 4_096, by: 23_131).enumerated() {
            var damaged = gz
            for k in 0..<2_048 { damaged[first + k] = UInt8(truncatingIfNeeded: ((k &+ 977 &* index) &* 2_654_435_761) >> 11) }
            let path = scratch.write("damaged-\(index).ndjson.gz", damaged)
            let one = try Child.run(analyze, ["--quiet", "--threads", "1", "--out", out, path])
            XCTAssertEqual(one.exitCode, 2, one.stderr)
            guard !one.stderr.contains(" check") else { continue }  // the CRC-32 or ISIZE found it
            let context = "damage from byte \(first): \(one.stderr)"
            guard let at = one.stderr.range(of: "at byte offset "),
                  let offset = Int(one.stderr[at.upperBound...].prefix(while: { $0.isNumber }))
            else {
                XCTFail("no byte offset: \(context)")
                continue
            }
            XCTAssertGreaterThanOrEqual(offset, first, context)
            XCTAssertLessThanOrEqual(offset, gz.count, context)
            let two = try Child.run(analyze, ["--quiet", "--threads", "2", "--out", out, path])
            XCTAssertEqual(two.stderr, one.stderr, "two workers; \(context)")
            named += 1
        }
        XCTAssertGreaterThanOrEqual(named, 3, "damage the decoder finds")
        XCTAssertFalse(FileManager.default.fileExists(atPath: out), "a failed run created --out")
    }

    func testGzipTruncatedAtEveryOffset() throws {
        let scratch = Scratch()
        let (out, before) = try establishedOutput(scratch)
        let (gz, _) = try smallGzip(scratch)
        let analyze = self.analyze, directory = scratch.path
        let count = gz.count
        // 0 and 1 bytes are not gzip (no magic): plain text, a successful run.
        let succeeds: Set<Int> = [0, 1, count]
        let results = ConcurrentResults(count: count + 1)
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            for n in stride(from: worker, through: count, by: 4) {
                let path = directory + "/cut-\(n).ndjson.gz"
                _ = FileManager.default.createFile(atPath: path, contents: gz.prefix(n))
                let target = succeeds.contains(n) ? directory + "/ok-\(n)" : out
                results.set(n, (try? Child.run(analyze, ["--quiet", "--out", target, path])) ?? .failedToStart)
                unlink(path)
            }
        }
        for n in 0...count {
            let run = results.get(n)
            if succeeds.contains(n) {
                XCTAssertEqual(run.exitCode, 0, "\(n) of \(count) bytes: \(run.stderr)")
            } else {
                // A prefix of a valid stream is never "corrupt", always "truncated",
                // and the offset is where the file ends.
                assertFailure(run, exit: 2, mentions: ["'\(directory)/cut-\(n).ndjson.gz'", "truncated", "byte offset \(n):"],
                              out: out, before: before, "truncated at \(n) of \(count)")
            }
        }
    }

    func testSecondMemberTruncatedAnywhereIsFatalAndAWholeMemberIsNot() throws {
        let scratch = Scratch()
        let (out, before) = try establishedOutput(scratch)
        let (gz, _) = try smallGzip(scratch)
        let two = gz + gz
        for n in stride(from: gz.count, through: two.count, by: 17) + [gz.count + 1, gz.count + 2, two.count - 1] {
            let path = scratch.write("two-\(n).ndjson.gz", two.prefix(n))
            let whole = n == gz.count || n == two.count
            let run = try Child.run(analyze, ["--quiet", "--out", whole ? scratch.path + "/ok" : out, path])
            if whole {
                XCTAssertEqual(run.exitCode, 0, "\(n): \(run.stderr)")
            } else {
                assertFailure(run, exit: 2, mentions: ["'\(path)'", "byte offset"], out: out, before: before, "two members cut at \(n)")
            }
        }
    }

    /// An empty member (no text) has its trailer checked where it is read,
    /// not recorded for the workers: its damage is named as theirs would be
    /// (zlib's words, the trailer's first byte), with one worker and two,
    /// and a damaged member before it is still named first. And a million
    /// empty members between two texts are read in bounded memory (they were
    /// all recorded at once, about 70 bytes each: 4.5 million of them held
    /// 332 MB; sixty-third session, found by a review of hostile inputs).
    func testEmptyMembersAreCheckedWhereTheyAreRead() throws {
        let scratch = Scratch()
        let (out, before) = try establishedOutput(scratch)
        let (gz, _) = try smallGzip(scratch)
        let empty = Data([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0x03, 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0])
        func withTrailer(_ byte: Int, _ value: UInt8) -> Data {
            var member = empty
            member[12 + byte] = value
            return member
        }
        var badCRC = gz
        badCRC[gz.count - 8] ^= 0xFF
        let cases: [(String, Data, String, Int)] = [
            ("empty-bad-crc", gz + withTrailer(0, 1), "incorrect data check", gz.count + 12),
            ("empty-bad-isize", gz + empty + withTrailer(4, 1), "incorrect length check", gz.count + 32),
            ("bad-crc-before-empty-bad-crc", badCRC + withTrailer(0, 1), "incorrect data check", gz.count - 8),
        ]
        for (name, bytes, words, offset) in cases {
            let path = scratch.write(name + ".ndjson.gz", bytes)
            for threads in ["1", "2"] {
                let run = try Child.run(analyze, ["--threads", threads, "--out", out, path])
                assertFailure(run, exit: 2, mentions: ["'\(path)'", "at byte offset \(offset): \(words)"], out: out,
                              before: before, "\(name), \(threads) threads")
                restore(out, before)
            }
        }
        var thousand = Data()
        for _ in 0..<1_000 { thousand.append(empty) }
        var many = gz
        many.reserveCapacity(2 * gz.count + 1_000 * thousand.count)
        for _ in 0..<1_000 { many.append(thousand) }
        many.append(gz)
        let path = scratch.write("many-empty.ndjson.gz", many)
        let plain = try Child.run(analyze, ["--quiet", "--out", scratch.path + "/plain", scratch.write("two.ndjson.gz", gz + gz)])
        XCTAssertEqual(plain.exitCode, 0, plain.stderr)
        for threads in ["1", "2"] {
            let run = try Child.run(analyze, ["--quiet", "--threads", threads, "--out", scratch.path + "/many" + threads, path])
            XCTAssertEqual(run.exitCode, 0, run.stderr)
            // About 17 MB here; 86 MB when each member end was recorded.
            XCTAssertLessThan(run.maxRSSKiB, Sanitizer.memoryBudget(kibibytes: 64 * 1024),
                              "peak RSS \(run.maxRSSKiB) KiB for a million empty members")
            for name in ["installs.csv", "profile_switches.csv", "quiz_answers.csv"] {
                XCTAssertEqual(FileManager.default.contents(atPath: scratch.path + "/many\(threads)/" + name),
                               FileManager.default.contents(atPath: scratch.path + "/plain/" + name), name)
            }
        }
    }

    func testGzipDamageIsFatalAndZeroPaddingIsNot() throws {
        let scratch = Scratch()
        let (out, before) = try establishedOutput(scratch)
        let (gz, text) = try smallGzip(scratch)
        func flipped(_ offset: Int, _ mask: UInt8 = 0xFF) -> Data {
            var copy = gz
            copy[offset] ^= mask
            return copy
        }
        /// `gzip -n < /dev/null`: a member with no text.
        let emptyMember = Data([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0x03, 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0])
        let damaged: [(String, Data)] = [
            ("bad-crc", flipped(gz.count - 8)),
            ("bad-crc-last-byte", flipped(gz.count - 5, 0x01)),
            ("bad-isize", flipped(gz.count - 4, 0x01)),
            ("bad-isize-high-byte", flipped(gz.count - 1, 0x80)),
            ("deflate-data", flipped(gz.count / 2)),
            ("header-method", flipped(2, 0x01)),
            ("header-reserved-flags", flipped(3, 0xE0)),
            // Each reserved flag bit alone (regression, mutation testing: a
            // check of two of the three passed every test).
            ("header-reserved-flag-20", flipped(3, 0x20)),
            ("header-reserved-flag-40", flipped(3, 0x40)),
            ("header-reserved-flag-80", flipped(3, 0x80)),
            ("garbage-after-member", gz + Data("garbage".utf8)),
            ("lone-1f-after-member", gz + Data([0x1f])),
            ("magic-then-garbage-after-member", gz + Data([0x1f, 0x8b, 0x00])),
            ("newline-after-member", gz + Data([0x0a])),
            ("zeros-then-garbage", gz + Data(count: 100) + Data([0x01])),
            // More zeros than one input buffer (256 KiB) before the damage
            // (regression, mutation testing: zeros that ended a buffer could
            // have ended the stream with no test failing).
            ("long-zeros-then-garbage", gz + Data(count: 300_000) + Data([0x01])),
            ("zeros-then-member", gz + Data(count: 3) + gz),
            ("magic-only", Data([0x1f, 0x8b])),
            // An empty member ends in a read that produces no text (regression:
            // what followed it went unreported once trailers were checked by
            // the workers).
            ("empty-member-then-garbage", emptyMember + Data("garbage".utf8)),
            ("empty-member-then-reserved-flags", emptyMember + flipped(3, 0x40)),
            ("member-empty-member-then-garbage", gz + emptyMember + Data([0x01])),
        ]
        for (name, bytes) in damaged {
            let path = scratch.write(name + ".ndjson.gz", bytes)
            let run = try Child.run(analyze, ["--out", out, path])
            assertFailure(run, exit: 2, mentions: ["'\(path)'", "byte offset"], out: out, before: before, name)
            restore(out, before)
        }
        // Fewer than 4 bytes after a member: damage where they cannot begin a
        // header, a truncation where they can (forty-first session, found by
        // review: `1f 00` was called a truncation).
        for (tail, word) in [([UInt8]([0x1f, 0x00]), "invalid gzip header"), ([0x1f, 0x8b, 0x07], "invalid gzip header"),
                             ([0x1f, 0x8b, 0x08], "truncated")] {
            let path = scratch.write("short-tail.ndjson.gz", gz + Data(tail))
            let run = try Child.run(analyze, ["--out", out, path])
            assertFailure(run, exit: 2, mentions: ["'\(path)'", "byte offset", word], out: out, before: before, "\(tail)")
            restore(out, before)
        }
        // The offset named is the first byte that is not zero after the
        // padding (regression, mutation testing: one byte early passed).
        for padding in [0, 100, 300_000] {
            let path = scratch.write("zeros-\(padding)-then-garbage.ndjson.gz", gz + Data(count: padding) + Data("x".utf8))
            let run = try Child.run(analyze, ["--out", out, path])
            assertFailure(run, exit: 2, mentions: ["'\(path)'", "at byte offset \(gz.count + padding): unexpected bytes after a gzip member"],
                          out: out, before: before, "\(padding) zeros")
            restore(out, before)
        }
        for name in ["badcrc.gz", "corrupt.gz", "garbage-1f.gz", "garbage.gz", "magic-only.ndjson", "truncated-mid.gz",
                     "truncated.gz", "zeros-then-member.gz"] {
            let path = example("gzip/bad/" + name)
            let run = try Child.run(analyze, ["--out", out, path])
            assertFailure(run, exit: 2, mentions: ["'\(path)'", "byte offset"], out: out, before: before, name)
            restore(out, before)
        }

        // Zero bytes after the last member are ignored, as by gzip -d.
        let reference = scratch.path + "/reference"
        XCTAssertEqual(try Child.run(analyze, ["--quiet", "--out", reference, scratch.write("plain.ndjson", text)]).exitCode, 0)
        for padding in [1, 7, 4096, 300_000] {
            let padded = scratch.path + "/padded-\(padding)"
            let path = scratch.write("padded-\(padding).ndjson.gz", gz + Data(count: padding))
            let run = try Child.run(analyze, ["--quiet", "--out", padded, path])
            XCTAssertEqual(run.exitCode, 0, "\(padding) zero bytes: \(run.stderr)")
            for name in ["installs.csv", "profile_switches.csv", "quiz_answers.csv"] {
                XCTAssertEqual(FileManager.default.contents(atPath: padded + "/" + name),
                               FileManager.default.contents(atPath: reference + "/" + name), "\(padding): \(name)")
            }
            let quality = try String(contentsOfFile: padded + "/quality.csv", encoding: .utf8)
            XCTAssertTrue(quality.contains("bytes_read,\(gz.count + padding)\n"), quality)
        }
    }
}

/// Results filled in by concurrent workers.
private final class ConcurrentResults: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [ChildResult]

    init(count: Int) { results = Array(repeating: .failedToStart, count: count) }

    func set(_ index: Int, _ result: ChildResult) {
        lock.lock()
        results[index] = result
        lock.unlock()
    }

    func get(_ index: Int) -> ChildResult {
        lock.lock()
        defer { lock.unlock() }
        return results[index]
    }
}
