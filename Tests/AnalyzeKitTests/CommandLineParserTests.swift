import XCTest
@testable import AnalyzeKit

final class CommandLineParserTests: XCTestCase {
    private func options(_ arguments: [String]) throws -> AnalyzeOptions {
        guard case .run(let options) = try CommandLineParser.parse(arguments) else {
            throw AnalyzeError.usage("not a run")
        }
        return options
    }

    private func assertUsageError(_ arguments: [String], mentions: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try CommandLineParser.parse(arguments), file: file, line: line) { error in
            guard case .usage(let message) = error as? AnalyzeError else {
                return XCTFail("expected a usage error, got \(error)", file: file, line: line)
            }
            XCTAssertTrue(message.contains(mentions), "'\(message)' should mention '\(mentions)'", file: file, line: line)
            XCTAssertEqual((error as? AnalyzeError)?.exitCode, 1, file: file, line: line)
        }
    }

    func testDefaults() throws {
        let parsed = try options(["events.ndjson.gz"])
        XCTAssertEqual(parsed.paths, ["events.ndjson.gz"])
        XCTAssertEqual(parsed.outputDirectory, "analyze-out")
        XCTAssertEqual(parsed.timeZone, .utc)
        XCTAssertEqual(parsed.threads, AnalyzeOptions.activeCores)
        XCTAssertEqual(parsed.maxRejectRate, RejectRate.never)
        XCTAssertEqual(parsed.maxRejectRows, 10_000)
        XCTAssertEqual(parsed.maxLineBytes, 1_048_576)
        XCTAssertFalse(parsed.quiet)
    }

    func testBothValueFormsOptionsAfterPathsAndDoubleDash() throws {
        let parsed = try options([
            "a.gz", "--out", "o", "--timezone=Asia/Tokyo", "--threads", "3", "--max-reject-rate=0.25",
            "--max-reject-rows", "0", "--max-line-bytes=10", "--quiet", "-", "--", "--weird-name",
        ])
        XCTAssertEqual(parsed.paths, ["a.gz", "-", "--weird-name"])
        XCTAssertEqual(parsed.outputDirectory, "o")
        XCTAssertEqual(parsed.timeZone, ReportingTimeZone(parsing: "Asia/Tokyo"))
        XCTAssertEqual(parsed.threads, 3)
        XCTAssertEqual(parsed.maxRejectRate, RejectRate(parsing: "0.25"))
        XCTAssertEqual(parsed.maxRejectRows, 0)
        XCTAssertEqual(parsed.maxLineBytes, 10)
        XCTAssertTrue(parsed.quiet)
        XCTAssertEqual(try options(["--timezone", "-05:00", "x"]).timeZone, ReportingTimeZone(parsing: "-05:00"))
        // `--opt=value` splits at the first `=`: the value may hold more
        // (regression, mutation testing: a split at the last one passed).
        XCTAssertEqual(try options(["--out=o=x", "x"]).outputDirectory, "o=x")
        XCTAssertEqual(try options(["--out==", "x"]).outputDirectory, "=")
    }

    /// A repeated option keeps its last value, and only that one is checked
    /// (as the reference implementation does).
    func testARepeatedOptionKeepsAndChecksOnlyItsLastValue() throws {
        let parsed = try options(["--threads", "0", "--threads=2", "--timezone", "Bad/Zone", "--timezone", "+09:00",
                                  "--max-reject-rate", "x", "--max-reject-rate", "0.1", "--out", "", "--out", "o", "a"])
        XCTAssertEqual(parsed.threads, 2)
        XCTAssertEqual(parsed.timeZone, ReportingTimeZone(parsing: "+09:00"))
        XCTAssertEqual(parsed.maxRejectRate, RejectRate(parsing: "0.1"))
        XCTAssertEqual(parsed.outputDirectory, "o")
        assertUsageError(["a", "--threads", "2", "--threads", "0"], mentions: "--threads")
        XCTAssertEqual(try CommandLineParser.parse(["--threads", "0", "--help"]), .help)
        // Counts beyond Int.max mean no limit, as the reference reads them.
        let huge = try options(["--max-reject-rows", "99999999999999999999999", "--threads", "99999999999999999999", "a"])
        XCTAssertEqual(huge.maxRejectRows, Int.max)
        XCTAssertEqual(huge.threads, Int.max)
        // The workers are `--threads`, at most one per usable core
        // (mutation testing, round 9: the larger of the two passed).
        XCTAssertEqual(huge.workers, AnalyzeOptions.activeCores)
        XCTAssertEqual(try options(["--threads", "1", "a"]).workers, 1)
    }

    /// Input paths keep their bytes; an `--out` that is not UTF-8 is a usage
    /// error (read as text it named another directory, and the outputs went
    /// there with exit 0: found by a review). Only the value kept counts.
    func testAnOutputDirectoryThatIsNotUTF8IsAUsageError() throws {
        let cafe: [UInt8] = Array("caf".utf8) + [0xE9]
        for arguments in [[Array("--out".utf8), cafe, Array("a".utf8)], [Array("--out=".utf8) + cafe, Array("a".utf8)]] {
            XCTAssertThrowsError(try CommandLineParser.parse(rawArguments: arguments)) { error in
                XCTAssertEqual((error as? AnalyzeError)?.exitCode, 1)
                XCTAssertTrue((error as? AnalyzeError)?.message.contains("--out") == true, "\(error)")
            }
        }
        guard case .run(let parsed) = try CommandLineParser.parse(rawArguments: [
            Array("--out".utf8), cafe, Array("--out=o".utf8), cafe + Array(".ndjson".utf8),
        ]) else { return XCTFail("not a run") }
        XCTAssertEqual(parsed.outputDirectory, "o")
        XCTAssertEqual(parsed.pathBytes, [cafe + Array(".ndjson".utf8)])
    }

    func testHelpAndVersion() throws {
        XCTAssertEqual(try CommandLineParser.parse(["--help"]), .help)
        XCTAssertEqual(try CommandLineParser.parse(["x", "-h"]), .help)
        XCTAssertEqual(try CommandLineParser.parse(["--version"]), .version)
        // They win wherever they stand, after a bad argument as before one
        // (`--bogus --version` once failed while `--version --bogus` printed).
        XCTAssertEqual(try CommandLineParser.parse(["--bogus", "--version"]), .version)
        XCTAssertEqual(try CommandLineParser.parse(["--version", "--bogus"]), .version)
        XCTAssertEqual(try CommandLineParser.parse(["--quiet=yes", "x", "-h"]), .help)
        XCTAssertEqual(try CommandLineParser.parse(["--help=yes", "--version"]), .version)
        XCTAssertEqual(try CommandLineParser.parse(["--help", "--version"]), .help)
        XCTAssertEqual(try CommandLineParser.parse(["--version", "-h"]), .version)
        // An option's inline value and anything after `--` are not flags;
        // a flag where a value should be still is (and wins).
        XCTAssertEqual(try options(["--out=--help", "x"]).outputDirectory, "--help")
        XCTAssertEqual(try options(["--", "--version"]).pathBytes, [Array("--version".utf8)])
        XCTAssertEqual(try CommandLineParser.parse(["--out", "--help", "x"]), .help)
        XCTAssertEqual(try CommandLineParser.parse(["--threads", "--version"]), .version)
        for option in ["--out", "--timezone", "--threads", "--max-reject-rate", "--max-reject-rows", "--max-line-bytes", "--quiet", "--version"] {
            XCTAssertTrue(CommandLineParser.helpText.contains(option), option)
        }
    }

    /// A long option (or `--`) where a value should be is read as itself,
    /// and the value is missing: `--out $DIR --quiet` with DIR unset must not
    /// write to a directory named `--quiet` and exit 0, nor `--out $DIR --q`
    /// to one named `--q`. A value that starts with one `-` is still a value;
    /// `--opt=VALUE` takes any.
    func testALongOptionWhereAValueShouldBeIsAMissingValue() throws {
        for option in ["--out", "--timezone", "--threads", "--max-reject-rate", "--max-reject-rows", "--max-line-bytes"] {
            for next in ["--quiet", "--out", "--threads=2", "--max-line-bytes", "--q", "--Quiet", "--", "--bogus=1"] where next != option {
                assertUsageError([option, next, "x"], mentions: "option \(option) needs a value, but the next argument is '\(next)'; "
                                 + "to use that as the value, write \(option)=\(next)")
            }
            // `-h` or `--version` there is read as itself, and wins.
            XCTAssertEqual(try CommandLineParser.parse([option, "-h", "x"]), .help)
            XCTAssertEqual(try CommandLineParser.parse([option, "--version", "x"]), .version)
        }
        // At the end, as before.
        assertUsageError(["x", "--out"], mentions: "option --out needs a value")
        // A problem in the arguments' shape is named before a bad value, and
        // the first of two before the second.
        assertUsageError(["--threads", "0", "--out", "--quiet", "x"], mentions: "option --out needs a value")
        assertUsageError(["--bogus", "--out", "--quiet", "x"], mentions: "unknown option '--bogus'")
        XCTAssertEqual(try options(["--out=--quiet", "x"]).outputDirectory, "--quiet")
        XCTAssertEqual(try options(["--out=--", "x"]).outputDirectory, "--")
        XCTAssertEqual(try options(["--out", "./--quiet", "x"]).outputDirectory, "./--quiet")
        XCTAssertEqual(try options(["--out", "-report", "x"]).outputDirectory, "-report")
        XCTAssertEqual(try options(["--out", "-q", "x"]).outputDirectory, "-q")
        XCTAssertEqual(try options(["--out", "-", "x"]).outputDirectory, "-")
        assertUsageError(["--max-reject-rows", "-1", "x"], mentions: "negative")  // a value, checked as one
        let quiet = try options(["--out", "d", "--quiet", "x"])
        XCTAssertEqual(quiet.outputDirectory, "d")
        XCTAssertTrue(quiet.quiet)
    }

    func testUsageErrors() {
        assertUsageError([], mentions: "no input path")
        assertUsageError(["--bogus", "x"], mentions: "--bogus")
        assertUsageError(["-x", "x"], mentions: "-x")
        assertUsageError(["x", "--out"], mentions: "--out")
        assertUsageError(["x", "--threads", "0"], mentions: "--threads")
        assertUsageError(["x", "--threads", "two"], mentions: "--threads")
        assertUsageError(["x", "--threads=-2"], mentions: "negative")
        assertUsageError(["x", "--max-line-bytes", "0"], mentions: "--max-line-bytes")
        assertUsageError(["x", "--max-reject-rows", "-1"], mentions: "negative")
        assertUsageError(["x", "--max-reject-rate", "-0.1"], mentions: "negative")
        assertUsageError(["x", "--max-reject-rate", "nan"], mentions: "--max-reject-rate")
        assertUsageError(["x", "--max-reject-rate", "abc"], mentions: "--max-reject-rate")
        assertUsageError(["x", "--timezone", "asia/tokyo"], mentions: "asia/tokyo")
        assertUsageError(["x", "--timezone", "Mars/Base"], mentions: "Mars/Base")
        assertUsageError(["x", "--timezone", "+0900"], mentions: "+0900")
        assertUsageError(["-", "-"], mentions: "more than once")
        assertUsageError(["x", "--quiet=yes"], mentions: "--quiet")
        assertUsageError(["x", "--help=yes"], mentions: "--help")
        assertUsageError(["x", "--version="], mentions: "--version")
        assertUsageError(["x", "--max-reject-rate", "+0.5"], mentions: "--max-reject-rate")
        // The first bad argument is the one named.
        assertUsageError(["--bogus", "--other", "x"], mentions: "--bogus")
        assertUsageError(["--quiet=1", "--bogus", "x"], mentions: "--quiet")
        assertUsageError(["--bogus", "x", "--threads"], mentions: "--bogus")
    }

    /// An unknown option names what was probably meant: the option or two it
    /// starts, else the nearest one or two within two slips (case and `_`
    /// for `-` are slips too), the one long option a lone letter starts, or
    /// how to name a file that starts with `-`. Nothing is guessed when
    /// nothing is near.
    func testUnknownOptionsSuggestWhatWasMeant() {
        let expected: [(String, String)] = [
            ("--outt", "; did you mean '--out'?"),
            ("--thread", "; did you mean '--threads'?"),
            ("--quite", "; did you mean '--quiet'?"),
            ("--max_reject_rate", "; did you mean '--max-reject-rate'?"),
            ("--Max-Line-Bytes", "; did you mean '--max-line-bytes'?"),
            ("--timezon", "; did you mean '--timezone'?"),
            ("-out", "; did you mean '--out'?"),
            ("--verison", "; did you mean '--version'?"),
            ("-o", "; did you mean '--out'?"),
            ("-q", "; did you mean '--quiet'?"),
            ("-v", "; did you mean '--version'?"),
            // The start of one option names it, though another is as few
            // slips away ('--qui' is two from '--out' too).
            ("--qui", "; did you mean '--quiet'?"),
            ("-qu", "; did you mean '--quiet'?"),
            ("--ver", "; did you mean '--version'?"),
            ("--tim", "; did you mean '--timezone'?"),
            ("--max-line", "; did you mean '--max-line-bytes'?"),
            // The start of two, or two equally near: both named.
            ("--max-reject", "; did you mean '--max-reject-rate' or '--max-reject-rows'?"),
            ("--max-reject-rat", "; did you mean '--max-reject-rate'?"),
            ("--max-reject-rot", "; did you mean '--max-reject-rate' or '--max-reject-rows'?"),
            // A lone letter after two dashes as after one (regression:
            // `--q` got no hint, neither a lone letter nor two letters long).
            ("--q", "; did you mean '--quiet'?"),
            ("--o", "; did you mean '--out'?"),
            // Two options start with t, three with m: no guess.
            ("-t", ""),
            ("-m", ""),
            ("--t", ""),
            // The start of three names none (mutation testing, round 8).
            ("--max", ""),
            ("--max-", ""),
            ("--bogus", ""),
            ("-x", ""),
            ("-x.gz", " (to read a file whose name starts with '-', write it as ./-x.gz or after --)"),
            ("--exports/day1", " (to read a file whose name starts with '-', write it as ./--exports/day1 or after --)"),
        ]
        for (name, hint) in expected {
            XCTAssertEqual(CommandLineParser.hint(forUnknown: name), hint, name)
        }
        assertUsageError(["--outt", "o", "x"], mentions: "unknown option '--outt'; did you mean '--out'?")
        // With a value attached, the name alone is matched.
        assertUsageError(["--thread=2", "x"], mentions: "unknown option '--thread'; did you mean '--threads'?")
        // Regression (sixty-fifth session's review): with nothing before the
        // `=`, the message named `--`, the end of options, not the argument.
        assertUsageError(["--=x", "x"], mentions: "unknown option '--=x'")
        assertUsageError(["--=", "x"], mentions: "unknown option '--='")
    }
}
