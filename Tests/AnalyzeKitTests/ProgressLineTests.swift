import XCTest
@testable import AnalyzeKit

/// The progress line's text (what a terminal shows during a run) and the
/// durations of the summary line.
final class ProgressLineTests: XCTestCase {
    private typealias Line = Analyzer.Progress

    func testBytesAreShownInTheUnitThatKeepsThemReadable() {
        XCTAssertEqual(Line.formatBytes(0), "0 B")
        XCTAssertEqual(Line.formatBytes(1023), "1023 B")
        XCTAssertEqual(Line.formatBytes(1024), "1.0 KiB")
        XCTAssertEqual(Line.formatBytes(1536), "1.5 KiB")
        // 9.99 KiB rounds to ten units: shown whole, not as "10.0".
        XCTAssertEqual(Line.formatBytes(10_230), "10 KiB")
        XCTAssertEqual(Line.formatBytes(400_000), "391 KiB")  // a slow pipe's second, not "0 MiB"
        XCTAssertEqual(Line.formatBytes(5 * 1_048_576), "5.0 MiB")
        XCTAssertEqual(Line.formatBytes(1_288_490_189), "1.2 GiB")
        XCTAssertEqual(Line.formatBytes(3 * 1_125_899_906_842_624), "3.0 PiB")
        XCTAssertEqual(Line.formatBytes(2048 * 1_125_899_906_842_624), "2048 PiB")  // the largest unit
        XCTAssertEqual(Line.formatBytes(-5), "0 B")
    }

    func testSecondsHaveOneDecimalAndNeverASignInside() {
        XCTAssertEqual(Line.formatSeconds(12.34), "12.3 s")
        XCTAssertEqual(Line.formatSeconds(0.05), "0.1 s")
        // Regression: -0.5 s printed as "0.-5 s" (an input that grew while read).
        XCTAssertEqual(Line.formatSeconds(-0.5), "0.0 s")
        XCTAssertEqual(Line.formatSeconds(-12), "0.0 s")
        // Past Int's range in tenths (1 byte of 10 TB read in 10 days): no trap.
        XCTAssertEqual(Line.formatSeconds(1e19), "1000000000000000.0 s")
        XCTAssertEqual(Line.formatSeconds(.infinity), "1000000000000000.0 s")
    }

    func testAnETAFromTheShareOfTheStoredBytesRead() {
        // A quarter read in 2 s: 6 s to go.
        XCTAssertEqual(
            Line.text(decoded: 3 * 1_048_576, stored: 250, total: 1000, lines: 5000, elapsed: 2),
            "analyze: 3.0 MiB decoded, 1.5 MiB/s, 2500 lines/s, 25% read, ETA 6.0 s")
    }

    func testAnInputThatGrewReadsAsAllReadWithoutAnETA() {
        // Regression: "131% read, ETA 0.-5 s".
        XCTAssertEqual(
            Line.text(decoded: 2048, stored: 1310, total: 1000, lines: 10, elapsed: 1),
            "analyze: 2.0 KiB decoded, 2.0 KiB/s, 10 lines/s, 100% read")
        XCTAssertEqual(
            Line.text(decoded: 2048, stored: 1000, total: 1000, lines: 10, elapsed: 1),
            "analyze: 2.0 KiB decoded, 2.0 KiB/s, 10 lines/s, 100% read")
    }

    func testNoShareOrETAWithoutAStoredSize() {
        // Standard input or a FIFO: the size is unknown (-1).
        XCTAssertEqual(
            Line.text(decoded: 400_000, stored: 400_000, total: -1, lines: 859, elapsed: 1),
            "analyze: 391 KiB decoded, 391 KiB/s, 859 lines/s")
        // Nothing read yet: no ETA from a zero share.
        XCTAssertEqual(
            Line.text(decoded: 0, stored: 0, total: 1000, lines: 0, elapsed: 0.5),
            "analyze: 0 B decoded, 0 B/s, 0 lines/s")
    }

    func testTheLineFitsOneRowOfTheTerminal() {
        let progress = Analyzer.Progress()
        progress.decodedBytes.store(10 * 1_073_741_824, ordering: .relaxed)
        progress.storedBytes.store(1 << 30, ordering: .relaxed)
        progress.totalBytes.store(3 << 30, ordering: .relaxed)
        progress.lines.store(12_345_678_901, ordering: .relaxed)
        let full = progress.line(elapsed: 10, columns: 1000)
        XCTAssertEqual(full, "analyze: 10 GiB decoded, 1.0 GiB/s, 1234567890 lines/s, 33% read, ETA 20.0 s")
        // The last column stays free (writing into it wraps on many terminals).
        for columns in [80, 40, 10, 2] {
            let line = progress.line(elapsed: 10, columns: columns)
            XCTAssertEqual(line, String(full.prefix(columns - 1)), "\(columns) columns")
        }
        XCTAssertEqual(progress.line(elapsed: 10, columns: 1), "a")
        // A terminal that does not say its width (0 columns, or no answer at
        // all) is taken as 80 wide, not as 1: with 1 byte of 3 GiB read the
        // ETA makes the line longer than 80.
        progress.storedBytes.store(1, ordering: .relaxed)
        let long = progress.line(elapsed: 10, columns: 1000)
        XCTAssertEqual(long, "analyze: 10 GiB decoded, 1.0 GiB/s, 1234567890 lines/s, 0% read, ETA 32212254710.0 s")
        XCTAssertEqual(progress.line(elapsed: 10, columns: 0), String(long.prefix(79)))
        XCTAssertEqual(progress.line(elapsed: 10, columns: -1), String(long.prefix(79)))
    }

    /// The first line is drawn half a second into a run: its rates are per
    /// second of that half second, not of a whole one.
    func testRatesEarlierThanOneSecondAreNotHalved() {
        let progress = Analyzer.Progress()
        progress.decodedBytes.store(1_048_576, ordering: .relaxed)
        progress.lines.store(1000, ordering: .relaxed)
        XCTAssertEqual(progress.line(elapsed: 0.5, columns: 1000), "analyze: 1.0 MiB decoded, 2.0 MiB/s, 2000 lines/s")
    }
}
