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
}
