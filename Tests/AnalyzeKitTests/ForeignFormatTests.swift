@testable import AnalyzeKit
import XCTest

/// Inputs in formats analyze does not read are recognized from their first
/// bytes (``ForeignFormat``), and a run's warnings and exit-3 message say
/// what happened in numbers (``Analyzer/warnings(foreignInputs:quality:)``).
final class ForeignFormatTests: XCTestCase {
    /// The magic numbers from each format's specification, followed by a few
    /// bytes of what such a file holds next.
    func testMagicNumbersOfCompressedFormatsAreRecognized() {
        let expected: [([UInt8], ForeignFormat?)] = [
            (Array("BZh91AY&SY".utf8), .bzip2),
            (Array("BZh1".utf8) + [0x17, 0x72, 0x45, 0x38, 0x50, 0x90, 0x00, 0x00, 0x00, 0x00], .bzip2),  // an empty stream
            ([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00, 0x00, 0x04], .xz),
            ([0x28, 0xB5, 0x2F, 0xFD, 0x24, 0x2E], .zstd),
            ([0x50, 0x2A, 0x4D, 0x18, 0x04, 0x00], .zstd),  // a skippable frame first (pzstd)
            ([0x5F, 0x2A, 0x4D, 0x18, 0x04, 0x00], .zstd),
            ([0x50, 0x4B, 0x03, 0x04, 0x14, 0x00], .zip),
            ([0x50, 0x4B, 0x05, 0x06, 0x00, 0x00], .zip),
            ([0x37, 0x7A, 0xBC, 0xAF, 0x27, 0x1C, 0x00, 0x04], .sevenZip),
            ([0x04, 0x22, 0x4D, 0x18, 0x64, 0x40], .lz4),
            ([0x02, 0x21, 0x4C, 0x18, 0x10, 0x00], .lz4),  // the legacy frame (lz4 -l)
            // Near misses: text, a bzip2 magic without its block-size digit,
            // a truncated xz magic, an empty input.
            (Array(#"{"event_id":"e1"}"#.utf8), nil),
            (Array("BZh{".utf8), nil),
            // A text line that begins as bzip2 does, and a bzip2 magic whose
            // block magic is cut short.
            (Array("BZh9 garbage\n".utf8), nil),
            (Array("BZh91AY&S".utf8), nil),
            (Array("BZh".utf8), nil),
            // Block-size digit 0, which no bzip2 file has, before a block magic
            // (found by mutation testing: digits from 0 passed).
            (Array("BZh0".utf8) + [0x31, 0x41, 0x59, 0x26, 0x53, 0x59], nil),
            ([0xFD, 0x37, 0x7A, 0x58, 0x5A], nil),
            (Array("PK\n".utf8), nil),
            ([0x60, 0x2A, 0x4D, 0x18, 0x04, 0x00], nil),
            ([], nil),
        ]
        for (bytes, format) in expected {
            XCTAssertEqual(ForeignFormat.recognize(stored: bytes), format, "\(bytes.prefix(10))")
        }
    }

    /// A magic number is looked for in what is stored only: a gzip input
    /// whose decoded text starts with zstd's magic is not a zstd file (the
    /// same bytes stored plain are).
    func testAMagicNumberInsideGzipIsNotTheInputsFormat() throws {
        let directory = TemporaryDirectory()
        let inner: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD, 0x24, 0x2E] + Array("\n{}\n".utf8)
        func format(_ name: String, _ bytes: [UInt8]) throws -> ForeignFormat? {
            let path = directory.write(name, bytes)
            let source = try DecodedTextSource(InputFile(displayName: path, location: .path(path)))
            var buffer = [UInt8](repeating: 0, count: 4_096)
            while try buffer.withUnsafeMutableBytes({ try source.read(into: $0) }) > 0 {}
            return source.foreignFormat
        }
        XCTAssertNil(try format("inner.ndjson.gz", gzip(inner)))
        XCTAssertEqual(try format("plain.ndjson", inner), .zstd)
    }

    /// A tar header is `ustar` at 257 and a checksum that adds up; a line of
    /// NDJSON with "ustar" at that offset is not one.
    func testATarHeaderNeedsItsMagicAndItsChecksum() {
        var header = tarHeader()
        header.sealTarChecksum()
        XCTAssertEqual(header.recognizedFormat, .tar)
        // GNU tar's magic ("ustar  \0") is one too.
        var gnu = header
        gnu.put("ustar  \0", at: 257)
        gnu.sealTarChecksum()
        XCTAssertEqual(gnu.recognizedFormat, .tar)
        // One byte changed: the checksum no longer adds up.
        var damaged = header
        damaged[0] ^= 1
        XCTAssertNil(damaged.recognizedFormat)
        // Fewer than 512 bytes cannot be told.
        XCTAssertNil(header.withUnsafeBytes { ForeignFormat.recognize(decoded: UnsafeRawBufferPointer(rebasing: $0[..<511])) })
        // An event whose customer user id puts "ustar" at offset 257.
        let prefix = #"{"event_id":"e1","event_type":"identify","timestamp":0,"device_id":"d","profile_id":"p","customer_user_id":""#
        let line = Array((prefix + String(repeating: "a", count: 257 - prefix.utf8.count) + "ustar " + String(repeating: "b", count: 300) + "\"}\n").utf8)
        XCTAssertEqual(Array(line[257..<262]), Array("ustar".utf8))
        XCTAssertNil(line.recognizedFormat)
    }

    /// A v7 tar header has no magic: its checksum adds up, and where a POSIX
    /// header has its magic and owner names (257..<329) it holds only NUL
    /// bytes. Regression: it was not told.
    func testAV7TarHeaderIsToldByItsChecksumAndItsZeros() {
        // Each header with its checksum sealed after the change.
        let variants: [(String, (inout [UInt8]) -> Void, ForeignFormat?)] = [
            ("v7", { _ in }, .tar),
            ("device numbers after 329, as GNU tar's v7 writes", { $0.put("0000000\00000000\0", at: 329) }, .tar),
            ("a byte in 257..<329 that is not NUL", { $0[300] = 0x61 }, nil),
            ("no name (an archive's end is a block of zeros)", { $0.put(String(repeating: "\0", count: 13), at: 0) }, nil),
        ]
        for (what, change, expected) in variants {
            var header = tarHeader(magic: false)
            change(&header)
            header.sealTarChecksum()
            XCTAssertEqual(header.recognizedFormat, expected, what)
        }
        var header = tarHeader(magic: false)
        header.sealTarChecksum()
        // A checksum that does not add up.
        var damaged = header
        damaged[1] ^= 1
        XCTAssertNil(damaged.recognizedFormat)
        // Text of 512 bytes or more is never one: it has no NUL bytes.
        let text = [UInt8](repeating: 0x61, count: 600)
        XCTAssertNil(text.recognizedFormat)
    }

    /// Skipped lookalikes are one warning per directory, three names shown
    /// (a directory named twice is one entry: `InputTests`'
    /// `testADirectoryNamedTwiceIsWarnedAboutOnce`).
    func testSkippedLookalikesAreOneWarningPerDirectory() {
        let warnings = Analyzer.warnings(
            skippedLookalikes: [("day", ["a.ndjson.xz", "b.ndjson.xz", "c.ndjson.xz", "d.ndjson.xz"]), ("night", ["e.JSONL"])],
            foreignInputs: [("x.zst", .zstd)], quality: nil)
        XCTAssertEqual(warnings.count, 3)
        XCTAssertEqual(warnings[0], "skipped 4 files in 'day' that look like exports but are not named *.ndjson, *.ndjson.gz, "
                       + "*.jsonl, *.jsonl.gz ('a.ndjson.xz', 'b.ndjson.xz', 'c.ndjson.xz', …); a directory contributes only those")
        XCTAssertEqual(warnings[1], "skipped 1 file in 'night' that looks like an export but is not named *.ndjson, *.ndjson.gz, "
                       + "*.jsonl, *.jsonl.gz ('e.JSONL'); a directory contributes only those")
        XCTAssertTrue(warnings[2].hasPrefix("'x.zst' looks like zstd data"), warnings[2])
    }

    /// Exit 3's rate shows its own digits, cut after as many decimals as it
    /// takes to be seen above the limit. Regression: 50 001 of 100 000
    /// against 0.5 said "50.00 %, more than 0.5".
    func testARateOverItsLimitShowsEnoughDecimalsToBeSeenAboveIt() {
        let expected: [(Int, Int, String, String)] = [
            (1, 3, "0.3", "33.33 %"),
            (50_001, 100_000, "0.5", "50.001 %"),
            (1, 100_000, "0", "0.001 %"),
            (99_999, 100_000, "0.9999", "99.999 %"),  // cut, not rounded to 100.00 %
            (2, 3, "0.66", "66.66 %"),
            (2, 3, "0.6666", "66.666 %"),
            (2, 3, "0.66666666", "66.6666666 %"),
            (1, 32, "0.01", "3.12 %"),
            (1, 3, "0.3333333333333333", "33.333333333333333 %"),
            (1, 3, "0.33333333333333333333", "33.333333333333333 %"),  // fifteen at most
            (5, 5, "0.99", "100.00 %"),
            (Int.max / 10 + 1, Int.max / 5, "0.5", "50.000000000000000 %"),
        ]
        for (part, whole, limit, text) in expected {
            XCTAssertEqual(Analyzer.percent(part, of: whole, above: RejectRate(parsing: limit)!), text, "\(part) of \(whole) over \(limit)")
        }
        let quality = QualityReport.allRejected(1)
        XCTAssertEqual(Analyzer.rejectRateMessage(quality: quality, limit: RejectRate(parsing: "0.5")!),
                       "1 of 1 line rejected (100.00 %: invalid_json 1), more than --max-reject-rate 0.5; no output written "
                       + "(run without --max-reject-rate to see them in rejects.csv)")
    }

    /// With every line rejected, the warning points to rejects.csv, or says
    /// that it lists none. Regression: it pointed there with
    /// `--max-reject-rows 0` too.
    func testTheAllRejectedWarningSaysWhetherRejectsCSVListsThem() {
        let quality = QualityReport.allRejected(3)
        XCTAssertEqual(Analyzer.warnings(skippedLookalikes: [], foreignInputs: [], quality: quality, rejectRowsListed: 3),
                       ["every one of the 3 lines was rejected (invalid_json 3); is this an Adapty event export? "
                        + "rejects.csv says which line failed and why"])
        XCTAssertEqual(Analyzer.warnings(skippedLookalikes: [], foreignInputs: [], quality: quality, rejectRowsListed: 0),
                       ["every one of the 3 lines was rejected (invalid_json 3); is this an Adapty event export? "
                        + "rejects.csv lists none of them with --max-reject-rows 0"])
    }

    /// Through a run: the warning says whether rejects.csv lists the lines,
    /// by the rows it holds, not by the lines rejected. Regression (mutation
    /// testing): a run that passed its rejected count instead told a
    /// `--max-reject-rows 0` run that rejects.csv says which line failed.
    func testARunsAllRejectedWarningFollowsTheRejectRowsItKept() throws {
        let prefix = "every one of the 2 lines was rejected (invalid_json 2); is this an Adapty event export? "
        XCTAssertEqual(try analyze(lines: ["x", "y"], maxRejectRows: 0).warnings,
                       [prefix + "rejects.csv lists none of them with --max-reject-rows 0"])
        XCTAssertEqual(try analyze(lines: ["x", "y"], maxRejectRows: 1).warnings,
                       [prefix + "rejects.csv says which line failed and why"])
    }

    /// A run with no lines at all (empty inputs) is not one whose every line
    /// was rejected: no warning.
    func testNoLinesAtAllIsNotEveryLineRejected() {
        XCTAssertEqual(Analyzer.warnings(skippedLookalikes: [], foreignInputs: [], quality: QualityReport(), rejectRowsListed: 0), [])
        XCTAssertEqual(Analyzer.warnings(skippedLookalikes: [], foreignInputs: [], quality: QualityReport.allRejected(0)), [])
    }

    /// A checksum field padded with leading spaces (as older tars write it)
    /// adds up too.
    func testATarChecksumWithLeadingSpacesIsRead() {
        var header = tarHeader()
        let digits = String(header.tarChecksum, radix: 8)
        XCTAssertLessThan(digits.count, 6)
        header.put(String(repeating: " ", count: 6 - digits.count) + digits + "\0 ", at: 148)
        XCTAssertEqual(header.recognizedFormat, .tar)
    }

    /// A checksum field is octal: a digit 8 makes it no checksum, even where
    /// read as if octal it would add up (found by mutation testing: digits 8
    /// and 9 taken passed every test).
    func testATarChecksumWithADigitThatIsNotOctalIsNoChecksum() {
        var header = tarHeader()
        // A byte in the name field makes the sum a multiple of 8.
        header[20] = UInt8((8 - header.tarChecksum % 8) % 8)
        let total = header.tarChecksum
        XCTAssertEqual(total % 8, 0)
        // The right field; then the same value with a last digit 8, which is
        // (total - 8) / 8 in octal followed by "8".
        header.put(String(total, radix: 8).leftPadded(to: 6) + "\0 ", at: 148)
        XCTAssertEqual(header.recognizedFormat, .tar)
        header.put(String((total - 8) / 8, radix: 8).leftPadded(to: 5) + "8\0 ", at: 148)
        XCTAssertNil(header.recognizedFormat)
    }
}

private extension QualityReport {
    /// A report of `lines` lines, all rejected as invalid JSON.
    static func allRejected(_ lines: Int) -> QualityReport {
        var quality = QualityReport()
        quality.lines = lines
        quality.rejectedByReason[Int(RejectReason.invalidJSON.rawValue)] = lines
        return quality
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}

/// A 512-byte tar header for a 15-byte file `events.ndjson`, its checksum
/// field still zeros: POSIX, or with no `magic`, v7.
private func tarHeader(magic: Bool = true) -> [UInt8] {
    var header = [UInt8](repeating: 0, count: 512)
    header.put("events.ndjson", at: 0)
    header.put("0000644\0", at: 100)
    header.put("00000000017\0", at: 124)
    header.put("0", at: 156)
    if magic { header.put("ustar\u{0}00", at: 257) }
    return header
}

private extension [UInt8] {
    mutating func put(_ text: String, at offset: Int) {
        replaceSubrange(offset..<(offset + text.utf8.count), with: Array(text.utf8))
    }

    /// A tar header's checksum, worked out here: the sum of its bytes with
    /// the checksum field itself (148..<156) counted as eight spaces.
    var tarChecksum: Int { enumerated().reduce(0) { $0 + ((148..<156).contains($1.offset) ? 32 : Int($1.element)) } }

    /// Writes the checksum field as the format stores it: six octal digits,
    /// NUL, space.
    mutating func sealTarChecksum() {
        put(String(tarChecksum, radix: 8).leftPadded(to: 6) + "\0 ", at: 148)
    }

    /// What ``ForeignFormat/recognize(decoded:)`` makes of these bytes.
    var recognizedFormat: ForeignFormat? { withUnsafeBytes { ForeignFormat.recognize(decoded: $0) } }
}
