import XCTest
@testable import AnalyzeKit

/// `--max-reject-rate` as an exact decimal (SPEC §5: fail when rejected / lines
/// is *strictly* greater), against hand-computed shares.
final class RejectRateTests: XCTestCase {
    private func rate(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> RejectRate {
        guard let rate = RejectRate(parsing: text) else {
            XCTFail("'\(text)' should parse", file: file, line: line)
            return .never
        }
        return rate
    }

    func testParsesDecimalsWithOptionalFractionAndExponentOnly() {
        for text in ["0", "1", "0.05", ".5", "5.", "007.50", "1e-2", "5E+0", "2.5e-3", "1e999", "0e5", "1e-999999999999999999999"] {
            XCTAssertNotNil(RejectRate(parsing: text), text)
        }
        for text in ["", ".", "e5", "1e", "1e+", "+0.5", "-0.5", "0.5%", "nan", "inf", "0x10", "1..2", " 1", "1 ", "1e2.5", "١"] {
            XCTAssertNil(RejectRate(parsing: text), text)
        }
        // Equal when the values are, however written.
        XCTAssertEqual(rate("0.5"), rate(".50"))
        XCTAssertEqual(rate("0.5"), rate("5e-1"))
        XCTAssertEqual(rate("0"), rate("0.000e7"))
        XCTAssertEqual(rate("1.0"), RejectRate.never)
        XCTAssertNotEqual(rate("0.5"), rate("0.05"))
        XCTAssertEqual(rate("1e-2").description, "1e-2", "kept as written, for messages")
    }

    func testStrictlyGreaterExactly() {
        // (rejected, lines, rate, exceeded)
        let cases: [(Int, Int, String, Bool)] = [
            (1, 2, "0.5", false), (1, 2, "0.49", true), (1, 2, "0.4999999999999999999999", true), (1, 2, "0.5000000000000000001", false),
            // 1/3 = 0.333…: above any finite run of threes, below 0.334.
            (1, 3, "0.3333333333333333", true), (1, 3, "0.33333333333333333333333333333", true), (1, 3, "0.334", false),
            // 2/3 = 0.666…: its double rounds up, to just above 0.6666666666666666.
            (2, 3, "0.6666666666666666", true), (2, 3, "0.6666666666666667", false), (2, 3, "6.666666666666666e-1", true),
            (0, 5, "0", false), (1, 5, "0", true), (1, 5, "0.2", false), (1, 5, "2e-1", false), (1, 5, ".19", true),
            (5, 5, "1", false), (5, 5, "0.99999", true), (5, 5, "1e999", false), (4, 5, "1", false),
            (3, 7, "0.428571428571", true), (3, 7, "0.428571428572", false),  // 3/7 = 0.428571428571…
            (1, 1_000_000_000_000, "1e-12", false), (1, 1_000_000_000_000, "9.99e-13", true),
            (1, 1_000_000_000_000_000, "1e-40", true), (1, 7, "1e-999999999999999999999", true),
            (0, 0, "0", false),  // never with no lines
        ]
        for (rejected, lines, text, exceeded) in cases {
            XCTAssertEqual(rate(text).isExceeded(rejected: rejected, lines: lines), exceeded, "\(rejected)/\(lines) > \(text)")
        }
    }

    /// An exponent is read in full (up to 10^15), so leading zeros of the
    /// mantissa may be balanced by a large one: 0.(1000 zeros)5e1001 is 5.
    func testALargeExponentBalancesManyLeadingZeros() {
        let five = RejectRate(parsing: "0." + String(repeating: "0", count: 1000) + "5e1001")
        XCTAssertEqual(five, RejectRate(parsing: "5"))
        XCTAssertEqual(five?.isExceeded(rejected: 1, lines: 1), false)
        let half = RejectRate(parsing: "0." + String(repeating: "0", count: 1000) + "5e1000")
        XCTAssertEqual(half, RejectRate(parsing: "0.5"))
    }
}
