import XCTest
@testable import AnalyzeKit

final class CSVWriterTests: XCTestCase {
    func testQuotesOnlyWhenNeeded() {
        var csv = CSVWriter(header: ["a", "b"])
        csv.row(["plain", "with,comma"])
        csv.row(["say \"hi\"", "line\nbreak"])
        csv.row(["cr\rhere", "é😀"])
        csv.row(bytes: [[], Array("x y".utf8)])
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
}
