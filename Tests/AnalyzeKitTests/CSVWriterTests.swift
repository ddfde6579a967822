import XCTest
@testable import AnalyzeKit

final class CSVWriterTests: XCTestCase {
    func testQuotesOnlyWhenNeeded() {
        var csv = CSVWriter(header: ["a", "b"])
        csv.row(["plain", "with,comma"])
        csv.row(["say \"hi\"", "line\nbreak"])
        csv.row(["cr\rhere", "é😀"])
        csv.field(text: [UInt8]())
        csv.field(text: Array("x y".utf8))
        csv.endRow()
        XCTAssertEqual(String(decoding: csv.bytes, as: UTF8.self),
                       "a,b\nplain,\"with,comma\"\n\"say \"\"hi\"\"\",\"line\nbreak\"\n\"cr\rhere\",é😀\n,x y\n")
    }

    func testFieldByFieldRowsSpellDatesAndNumbersAsStringsWould() {
        var csv = CSVWriter(header: ["date", "n"])
        let dates = [
            CivilDate(year: 1, month: 1, day: 1), CivilDate(year: 0, month: 12, day: 31),
            CivilDate(year: 2026, month: 11, day: 9), CivilDate(year: 9999, month: 12, day: 31),
            CivilDate(year: 12345, month: 6, day: 30), CivilDate(year: -44, month: 3, day: 15),
        ]
        let numbers = [0, 7, 10, -3, Int.max, Int.min]
        var expected = "date,n\n"
        for (date, number) in zip(dates, numbers) {
            csv.field(date)
            csv.field(number)
            csv.endRow()
            expected += "\(date),\(number)\n"
        }
        csv.row(["after", "row"])
        expected += "after,row\n"
        XCTAssertEqual(String(decoding: csv.bytes, as: UTF8.self), expected)
        XCTAssertTrue(expected.contains("0001-01-01,0\n0000-12-31,7\n2026-11-09,10\n"))
        XCTAssertTrue(expected.contains("12345-06-30,9223372036854775807\n-0044-03-15,-9223372036854775808\n"))
    }

    /// Text fields are quoted as whole rows' fields are; fixed-point fields
    /// keep every decimal, zeros included (`1.0000`, not `1`).
    func testFieldByFieldTextAndFixedPointFields() {
        var csv = CSVWriter(header: ["t", "u", "x"])
        let cases: [(Int, String)] = [(0, "0.0000"), (1, "0.0001"), (313, "0.0313"), (3_125, "0.3125"), (9_999, "0.9999"),
                                      (10_000, "1.0000"), (10_001, "1.0001"), (123_456_789, "12345.6789")]
        var expected = "t,u,x\n"
        for (scaled, text) in cases {
            csv.field(text: Array("id,\(scaled)".utf8))
            csv.field(text: "say \"\(scaled)\"".utf8)
            csv.field(scaled, decimals: 4)
            csv.endRow()
            expected += "\"id,\(scaled)\",\"say \"\"\(scaled)\"\"\",\(text)\n"
        }
        csv.field(text: [UInt8]())
        csv.field(text: "plain".utf8)
        csv.field(5, decimals: 1)
        csv.endRow()
        expected += ",plain,0.5\n"
        XCTAssertEqual(String(decoding: csv.bytes, as: UTF8.self), expected)
    }

    func testSinkGetsTheSameTextInBlocksThatEndAtRowEnds() {
        // Rows of varied lengths (1 to 40 bytes), so that blocks overshoot
        // their size by varied amounts.
        func rows(_ csv: inout CSVWriter) {
            for k in 0..<2_000 {
                if k % 3 == 0 {
                    csv.field(k)
                    csv.field(CivilDate(dayNumber: Int64(k)))
                    csv.endRow()
                } else {
                    csv.row([String(repeating: "x", count: k % 37), k % 2 == 0 ? "a,b" : ""])
                }
            }
        }
        var whole = CSVWriter(header: ["h1", "h2"])
        rows(&whole)
        for blockSize in [1, 100, 4_096, 1 << 20] {
            var blocks: [[UInt8]] = []
            var streamed = CSVWriter(header: ["h1", "h2"], blockSize: blockSize) { blocks.append($0) }
            rows(&streamed)
            if blockSize > whole.bytes.count { XCTAssertTrue(blocks.isEmpty, "sent before a block was full") }
            streamed.finish()
            streamed.finish()  // a second finish sends nothing more
            XCTAssertEqual(Array(blocks.joined()), whole.bytes, "block size \(blockSize)")
            XCTAssertTrue(streamed.bytes.isEmpty)
            for (index, block) in blocks.enumerated() {
                XCTAssertEqual(block.last, UInt8(ascii: "\n"), "block \(index) of size \(blockSize) ends mid-row")
                // Sent as soon as it was full (the last one too): without its
                // last row it was not.
                let withoutLastRow = block.dropLast().lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0
                XCTAssertLessThan(withoutLastRow, blockSize, "block \(index) of size \(blockSize) held back")
                if index < blocks.count - 1 { XCTAssertGreaterThanOrEqual(block.count, blockSize) }
            }
        }
        // A block per row when every row fills one.
        var tiny: [[UInt8]] = []
        var perRow = CSVWriter(header: ["h"], blockSize: 1) { tiny.append($0) }
        perRow.row(["a"])
        perRow.finish()
        XCTAssertEqual(tiny.map { String(decoding: $0, as: UTF8.self) }, ["h\n", "a\n"])
    }

    func testOutputDirectoryStreamsEachFileToTheTextGatheredWhole() throws {
        // A zero-filled installs.csv of 146 097 rows (2.5 MB: about 38 blocks)
        // and four small files, written the way a run writes them.
        let result = try analyze(lines: [
            event("e1", "sdk_activate", "2000-12-31T23:59:59Z", device: "d2", profile: "p2"),
            event("e2", "identify", "1601-01-01T00:00:00Z", device: "d1", profile: "p1", cuid: "u1"),
            "not json",
        ])
        let directory = TemporaryDirectory()
        let out = directory.path + "/out"
        try OutputDirectory(path: out).write(result.csvOutputs)
        let whole = result.csvFiles()
        XCTAssertEqual(whole.map(\.name), ["installs.csv", "profile_switches.csv", "quiz_answers.csv", "quality.csv", "rejects.csv"])
        XCTAssertGreaterThan(whole[0].contents.count, 2_000_000)
        for file in whole {
            let written = try XCTUnwrap(FileManager.default.contents(atPath: out + "/" + file.name), file.name)
            XCTAssertEqual(Array(written), file.contents, file.name)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out).sorted(), whole.map(\.name).sorted(),
                       "no temporary file left")
    }
}
