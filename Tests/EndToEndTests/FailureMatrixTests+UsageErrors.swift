import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension FailureMatrixTests {
    // MARK: Usage errors (SPEC §5)

    func testEveryUsageErrorExitsOneAndTouchesNothing() throws {
        let scratch = Scratch()
        let (out, before) = try establishedOutput(scratch)
        let input = example("basic/events.ndjson")
        let cases: [(arguments: [String], mention: String)] = [
            // unknown flags
            (["--bogus", input], "--bogus"), (["-x", input], "-x"), (["--out-dir", "d", input], "--out-dir"),
            (["--QUIET", input], "--QUIET"), (["---", input], "---"),
            // missing values
            ([input, "--out"], "--out"), ([input, "--timezone"], "--timezone"), ([input, "--threads"], "--threads"),
            ([input, "--max-reject-rate"], "--max-reject-rate"), ([input, "--max-reject-rows"], "--max-reject-rows"),
            ([input, "--max-line-bytes"], "--max-line-bytes"),
            // malformed values
            (["--threads", "abc", input], "--threads"), (["--threads", "1.5", input], "--threads"),
            (["--threads", "", input], "--threads"), (["--threads=", input], "--threads"), (["--threads", " 2", input], "--threads"),
            (["--threads", "0x10", input], "--threads"),
            (["--max-line-bytes", "1e3", input], "--max-line-bytes"), (["--max-reject-rows", "1.0", input], "--max-reject-rows"),
            (["--max-reject-rate", "abc", input], "--max-reject-rate"), (["--max-reject-rate", "nan", input], "--max-reject-rate"),
            (["--max-reject-rate", "inf", input], "--max-reject-rate"), (["--max-reject-rate", "+0.5", input], "--max-reject-rate"),
            (["--max-reject-rate", "", input], "--max-reject-rate"), (["--max-reject-rate", "0.5%", input], "--max-reject-rate"),
            (["--quiet=yes", input], "--quiet"), (["--out=", input], "--out"),
            // zero where at least 1 is needed
            (["--threads", "0", input], "--threads"), (["--max-line-bytes", "0", input], "--max-line-bytes"),
            (["--threads=00", input], "--threads"),
            // negative numbers
            (["--threads", "-1", input], "--threads"), (["--threads=-4", input], "--threads"),
            (["--max-line-bytes", "-5", input], "--max-line-bytes"), (["--max-reject-rows", "-1", input], "--max-reject-rows"),
            (["--max-reject-rate", "-0.5", input], "--max-reject-rate"), (["--max-reject-rate=-1e-3", input], "--max-reject-rate"),
            // unknown time zones: IANA names are case-sensitive, offsets only ±HH:MM
            (["--timezone", "Asia/tokyo", input], "Asia/tokyo"), (["--timezone", "utc", input], "utc"),
            (["--timezone", "Mars/Olympus_Mons", input], "Mars/Olympus_Mons"), (["--timezone", "+0900", input], "+0900"),
            (["--timezone", "+9:00", input], "+9:00"), (["--timezone", "09:00", input], "09:00"),
            (["--timezone", "+09:60", input], "+09:60"), (["--timezone", "UTC+9", input], "UTC+9"),
            (["--timezone", "", input], "--timezone"), (["--timezone=", input], "--timezone"),
            // no path
            ([], "no input path"), (["--quiet"], "no input path"), (["--"], "no input path"),
            (["--out", out], "no input path"),
            // standard input twice
            (["-", "-"], "'-'"), (["-", input, "-"], "'-'"), (["--", "-", "-"], "'-'"),
        ]
        for (arguments, mention) in cases {
            let run = try Child.run(analyze, ["--out", out] + arguments, stdin: .closed)
            assertFailure(run, exit: 1, mentions: [mention], out: out, before: before, "\(arguments)")
            // One message and one pointer to --help (regression: some messages
            // carried their own "(see --help)" beside it).
            XCTAssertEqual(run.stderr.components(separatedBy: "--help").count - 1, 1, "\(arguments): \(run.stderr)")
            XCTAssertEqual(run.stderr.split(separator: "\n").count, 2, "\(arguments): \(run.stderr)")
            let missing = scratch.path + "/never-created"
            let again = try Child.run(analyze, ["--out", missing] + arguments, stdin: .closed)
            // (["--out", out] as the arguments names its own --out last, which wins.)
            if !arguments.contains("--out") {
                assertFailure(again, exit: 1, mentions: [mention], out: missing, before: nil, "\(arguments), new --out")
            }
        }
    }
}
