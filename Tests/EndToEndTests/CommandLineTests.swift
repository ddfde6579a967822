import EventGenerator
import Foundation
import XCTest

/// The built binary end to end: outputs, messages and exit codes (SPEC §5, §6).
final class CommandLineTests: XCTestCase {
    private let csvNames = ["installs.csv", "profile_switches.csv", "quiz_answers.csv", "quality.csv", "rejects.csv"]

    /// Runs `/bin/sh -c script` with `arguments` ($0, $1, …); its exit
    /// status and standard error.
    private func shell(_ script: String, _ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script] + arguments
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, stderr)
    }

    private func sample(_ name: String) -> String {
        AnalyzeBinary.repositoryRoot.appendingPathComponent("sample-data").appendingPathComponent(name).path
    }

    func testSampleDataReproducesTheGoldenCSVs() throws {
        let scratch = Scratch()
        let out = scratch.path + "/out"
        // As the README runs it: from the repository root, with the relative path.
        let run = try AnalyzeBinary.run(["--out", out, "--threads", "3", "sample-data/"], in: AnalyzeBinary.repositoryRoot.path)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stdout, "")
        XCTAssertTrue(run.stderr.hasPrefix("analyze: "), run.stderr)
        for name in csvNames {
            let expected = try Data(contentsOf: URL(fileURLWithPath: sample("expected/" + name)))
            let actual = try Data(contentsOf: URL(fileURLWithPath: out + "/" + name))
            XCTAssertEqual(actual, expected, "\(name) differs from sample-data/expected/\(name)")
        }
        XCTAssertEqual(Set(Scratch.snapshot(out).keys), Set(csvNames), "no temporary files are left behind")
    }

    /// The hashes behind every table are keyed at random per run
    /// (``ByteHash``); no byte of any output may depend on the key. Three
    /// fixed keys, 0 included, and a random one, on a noisy generated export.
    func testNoOutputDependsOnTheHashKey() throws {
        let scratch = Scratch()
        let configuration = GeneratorConfiguration(seed: 41, events: 8_000, days: 6, noise: 0.05, crlf: false)
        let input = scratch.write("events.ndjson.gz", Data(generateGzipExport(configuration, members: 2)))
        var outputs: [[String: Data]] = []
        for key in ["0", "1", "18446744073709551615", nil] {
            let out = scratch.path + "/out-" + (key ?? "random")
            let run = try AnalyzeBinary.run(["--quiet", "--out", out, input],
                                            environment: key.map { ["ANALYZE_HASH_SEED": $0] } ?? [:])
            XCTAssertEqual(run.status, 0, run.stderr)
            outputs.append(Scratch.snapshot(out))
        }
        XCTAssertEqual(Set(outputs[0].keys), Set(csvNames))
        XCTAssertGreaterThan(outputs[0]["quiz_answers.csv"]?.count ?? 0, 200, "the export has quiz answers")
        for other in outputs.dropFirst() { XCTAssertEqual(other, outputs[0]) }
        // A key that cannot be read is a usage error, not a random key.
        for bad in ["0x10", "-1", "", "18446744073709551616"] {
            let run = try AnalyzeBinary.run(["--quiet", "--out", scratch.path + "/bad", input],
                                            environment: ["ANALYZE_HASH_SEED": bad])
            XCTAssertEqual(run.status, 1, "'\(bad)': \(run.stderr)")
            XCTAssertTrue(run.stderr.contains("ANALYZE_HASH_SEED"), run.stderr)
        }
    }

    /// An IANA zone's offsets come from `$TZDIR/NAME` (by default the host's
    /// `/usr/share/zoneinfo`) when that is a zone file, else from the data
    /// built in (docs/data-model.md, "Time zone data"). The file here is made
    /// up: America/Vancouver at +05:00 from 2000 on, so that its day differs
    /// from both the built-in one and the real one.
    func testTimeZoneOffsetsComeFromTZDIR() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("analyze-tzdir-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("zones/America"),
                                                withIntermediateDirectories: true)
        func bigEndian(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
        func header(times: Int, types: Int, characters: Int) -> [UInt8] {
            Array("TZif2".utf8) + [UInt8](repeating: 0, count: 15)
                + [0, 0, 0, times, types, characters].flatMap { bigEndian(UInt32($0)) }
        }
        var file = header(times: 0, types: 1, characters: 4) + bigEndian(0) + [0, 0] + Array("LMT\0".utf8)
        file += header(times: 1, types: 2, characters: 4)
        file += bigEndian(0) + bigEndian(946_684_800) + [1]                        // 2000-01-01: type 1
        file += bigEndian(UInt32(bitPattern: -28_800)) + [0, 0] + bigEndian(18_000) + [0, 0]
        file += Array("LMT\0".utf8) + Array("\n<+05>-5\n".utf8)
        try Data(file).write(to: directory.appendingPathComponent("zones/America/Vancouver"))
        // 2026-11-20T20:30:00Z: 01:30 on the 21st at +05:00, 12:30 on the 20th in Vancouver.
        let input = directory.appendingPathComponent("events.ndjson")
        try Data(#"{"event_type":"sdk_activate","event_id":"e1","profile_id":"p1","device_id":"d1","timestamp":"2026-11-20T20:30:00Z"}"#.utf8 + [10])
            .write(to: input)
        func installDay(_ environment: [String: String]) throws -> Substring? {
            let out = directory.appendingPathComponent("out").path
            let run = try AnalyzeBinary.run(["--quiet", "--timezone", "America/Vancouver", "--out", out, input.path],
                                            environment: environment)
            XCTAssertEqual(run.status, 0, run.stderr)
            let csv = try String(contentsOfFile: out + "/installs.csv", encoding: .utf8)
            return csv.split(separator: "\n").dropFirst().first?.split(separator: ",").first
        }
        XCTAssertEqual(try installDay(["TZDIR": directory.appendingPathComponent("zones").path]), "2026-11-21")
        XCTAssertEqual(try installDay(["TZDIR": directory.appendingPathComponent("none").path]), "2026-11-20")
        let version = try AnalyzeBinary.run(["--version"], environment: ["TZDIR": directory.appendingPathComponent("zones").path])
        XCTAssertTrue(version.stdout.contains("time zones: \(directory.path)/zones (release unknown), else built-in ("),
                      version.stdout)
    }

    func testHelpAndVersionGoToStandardOutput() throws {
        let help = try AnalyzeBinary.run(["--help"])
        XCTAssertEqual(help.status, 0)
        XCTAssertTrue(help.stdout.hasPrefix("Usage: analyze"))
        XCTAssertTrue(help.stdout.contains("--max-reject-rate R"))
        XCTAssertEqual(help.stderr, "")
        let version = try AnalyzeBinary.run(["--version"])
        XCTAssertEqual(version.status, 0)
        XCTAssertTrue(version.stdout.hasPrefix("analyze "), version.stdout)
        XCTAssertTrue(version.stdout.contains("inflater: "), version.stdout)
        XCTAssertTrue(version.stdout.contains("; time zones: "), version.stdout)
        let noZoneFiles = try AnalyzeBinary.run(["--version"], environment: ["TZDIR": "/nonexistent-zoneinfo"])
        XCTAssertTrue(noZoneFiles.stdout.hasSuffix("; time zones: built-in (\(TimeZone.timeZoneDataVersion)))\n"),
                      noZoneFiles.stdout)
        // After a bad option as before one: the same answer, exit 0.
        let late = try AnalyzeBinary.run(["--bogus", "--threads", "0", "--version"])
        XCTAssertEqual(late.status, 0, late.stderr)
        XCTAssertEqual(late.stdout, version.stdout)
        XCTAssertEqual(late.stderr, "")
    }

    func testUsageErrorsExitOneAndWriteNothing() throws {
        let scratch = Scratch()
        let out = scratch.path + "/out"
        for arguments in [
            [String](), ["--bogus", "x"], ["--threads", "0", "x"], ["--max-line-bytes", "0", "x"],
            ["--max-reject-rows", "-1", "x"], ["--timezone", "Asia/tokyo", "x"], ["--timezone", "+0900", "x"],
            ["-", "-"], ["x", "--out"], ["--threads=abc", "x"],
        ] {
            let run = try AnalyzeBinary.run(["--out", out] + arguments)
            XCTAssertEqual(run.status, 1, "\(arguments): \(run.stderr)")
            XCTAssertTrue(run.stderr.hasPrefix("analyze: "), run.stderr)
            XCTAssertEqual(run.stdout, "")
            XCTAssertFalse(FileManager.default.fileExists(atPath: out), "\(arguments) created --out")
        }
    }

    /// `analyze --out $OUT --quiet FILE` with OUT unset or empty: a usage
    /// error that says what happened, not a report in a directory named
    /// `--quiet` and exit 0. Regression: the flag was taken as the directory.
    func testAFlagWhereTheOutDirectoryShouldBeIsAUsageError() throws {
        let scratch = Scratch()
        let run = try AnalyzeBinary.run(["--out", "--quiet", sample("events.ndjson.gz")], in: scratch.path)
        XCTAssertEqual(run.status, 1, run.stderr)
        XCTAssertEqual(run.stderr, "analyze: option --out needs a value, but the next argument is '--quiet'; "
                       + "to use that as the value, write --out=--quiet\n"
                       + "analyze: see 'analyze --help'\n")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: scratch.path), [])
        // Asked for in so many words, it is a directory name.
        let named = try AnalyzeBinary.run(["--out=--quiet", "--quiet", sample("events.ndjson.gz")], in: scratch.path)
        XCTAssertEqual(named.status, 0, named.stderr)
        XCTAssertEqual(Scratch.snapshot(scratch.path + "/--quiet").count, 5)
    }

    func testInputErrorsExitTwoAndLeaveEarlierOutputsUntouched() throws {
        let scratch = Scratch()
        let out = scratch.path + "/out"
        XCTAssertEqual(try AnalyzeBinary.run(["--quiet", "--out", out, sample("events.ndjson.gz")]).status, 0)
        let before = Scratch.snapshot(out)
        XCTAssertEqual(before.count, 5)

        let gz = try Data(contentsOf: URL(fileURLWithPath: sample("events.ndjson.gz")))
        let truncated = scratch.write("truncated.ndjson.gz", gz.prefix(gz.count / 2))
        var run = try AnalyzeBinary.run(["--out", out, sample("events.ndjson.gz"), truncated])
        XCTAssertEqual(run.status, 2)
        XCTAssertTrue(run.stderr.hasPrefix("analyze: "), run.stderr)
        XCTAssertTrue(run.stderr.contains(truncated), run.stderr)
        XCTAssertTrue(run.stderr.contains("byte offset"), run.stderr)
        XCTAssertEqual(Scratch.snapshot(out), before)

        run = try AnalyzeBinary.run(["--out", out, scratch.path + "/missing.ndjson"])
        XCTAssertEqual(run.status, 2)
        XCTAssertTrue(run.stderr.contains("missing.ndjson"), run.stderr)
        XCTAssertEqual(Scratch.snapshot(out), before)
    }

    func testRejectRateExceededExitsThreeAndWritesNothing() throws {
        let scratch = Scratch()
        let out = scratch.path + "/out"
        let input = scratch.write("half.ndjson", Data("""
            {"event_id":"a","event_type":"logout","timestamp":0,"device_id":"d","profile_id":"p"}
            not json

            """.utf8))
        var run = try AnalyzeBinary.run(["--out", out, "--max-reject-rate", "0.49", input])
        XCTAssertEqual(run.status, 3, run.stderr)
        XCTAssertTrue(run.stderr.hasPrefix("analyze: "))
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
        // Exactly at the rate is not "more than".
        run = try AnalyzeBinary.run(["--quiet", "--out", out, "--max-reject-rate", "0.5", input])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stderr, "")
        let rejects = try String(contentsOfFile: out + "/rejects.csv", encoding: .utf8)
        XCTAssertEqual(rejects, "file,line,reason\n\(input),2,invalid_json\n")
    }

    /// A run over `--max-reject-rate` whose every line was rejected says so
    /// in its one message, which gives the rejections: no warning that every
    /// line was rejected beside it (that warning points at rejects.csv,
    /// which such a run does not write) (mutation testing, round 8).
    func testEveryLineRejectedOverTheRateIsOneMessageWithoutTheWarning() throws {
        let scratch = Scratch()
        let input = scratch.write("rejected.ndjson", Data("not json\n[1]\n".utf8))
        let run = try AnalyzeBinary.run(["--quiet", "--out", scratch.path + "/out", "--max-reject-rate", "0.5", input])
        XCTAssertEqual(run.status, 3, run.stderr)
        XCTAssertEqual(run.stderr, "analyze: 2 of 2 lines rejected (100.00 %: invalid_json 1, not_an_object 1), more than "
                       + "--max-reject-rate 0.5; no output written (run without --max-reject-rate to see them in rejects.csv)\n")
    }

    /// The rate is compared exactly: 1 rejected line of 3 is more than
    /// 0.3333333333333333, though 1.0 / 3.0 is that same double (regression:
    /// compared as doubles, the run exited 0). A limit beyond any count is no
    /// limit (regression: `--max-reject-rows` of 2^62 or more trapped).
    func testRejectRateIsComparedExactlyAndHugeLimitsMeanNoLimit() throws {
        let scratch = Scratch()
        let input = scratch.write("third.ndjson", Data("""
            {"event_id":"a","event_type":"logout","timestamp":0,"device_id":"d","profile_id":"p"}
            {"event_id":"b","event_type":"logout","timestamp":0,"device_id":"d","profile_id":"p"}
            not json

            """.utf8))
        var run = try AnalyzeBinary.run(["--quiet", "--out", scratch.path + "/a", "--max-reject-rate", "0.3333333333333333", input])
        XCTAssertEqual(run.status, 3, run.stderr)
        XCTAssertEqual(run.stderr, "analyze: 1 of 3 lines rejected (33.333333333333333 %: invalid_json 1), more than --max-reject-rate "
                       + "0.3333333333333333; no output written (run without --max-reject-rate to see them in rejects.csv)\n")
        run = try AnalyzeBinary.run(["--quiet", "--out", scratch.path + "/b", "--max-reject-rate", "0.33333333333333334", input])
        XCTAssertEqual(run.status, 0, run.stderr)
        run = try AnalyzeBinary.run([
            "--quiet", "--out", scratch.path + "/c", "--max-reject-rows", "9223372036854775807", "--max-reject-rate", "1e999",
            "--threads", "99999999999999999999", input,
        ])
        XCTAssertEqual(run.status, 0, run.stderr)
        let rejects = try String(contentsOfFile: scratch.path + "/c/rejects.csv", encoding: .utf8)
        XCTAssertEqual(rejects, "file,line,reason\n\(input),3,invalid_json\n")
    }

    /// SPEC §5 and §2: the rate's denominator is `lines`, duplicates included
    /// (`lines` = `events` + `duplicates` + `rejected`). Regression (mutation
    /// testing: a rate over kept events and rejects only passed every test).
    func testRejectRateCountsDuplicatesInItsLines() throws {
        let scratch = Scratch()
        let input = scratch.write("duplicated.ndjson", Data("""
            {"event_id":"a","event_type":"logout","timestamp":0,"device_id":"d","profile_id":"p"}
            {"event_id":"a","event_type":"logout","timestamp":0,"device_id":"d","profile_id":"p"}
            not json

            """.utf8))
        // 1 of 3 lines: within 0.4 (1 of 2, kept events and rejects alone, is not).
        var run = try AnalyzeBinary.run(["--quiet", "--out", scratch.path + "/a", "--max-reject-rate", "0.4", input])
        XCTAssertEqual(run.status, 0, run.stderr)
        run = try AnalyzeBinary.run(["--quiet", "--out", scratch.path + "/b", "--max-reject-rate", "0.3", input])
        XCTAssertEqual(run.status, 3, run.stderr)
        XCTAssertTrue(run.stderr.hasPrefix("analyze: 1 of 3 lines rejected (33.3"), run.stderr)
    }

    /// A file in a format analyze does not read is still read as the SPEC
    /// says (plain text, as it does not start with gzip's magic), so its
    /// lines are rejected; the run says why in a warning, also with
    /// `--quiet`, and one more that every line was rejected.
    func testACompressedFormatOtherThanGzipIsNamedInAWarning() throws {
        let scratch = Scratch()
        // zstd's magic number, then bytes as a compressor leaves them.
        let input = scratch.write("events.ndjson.zst", Data([0x28, 0xB5, 0x2F, 0xFD, 0x24, 0x2E, 0x0A, 0x7B, 0x00, 0x0A, 0x91]))
        for quiet in [false, true] {
            let out = scratch.path + (quiet ? "/quiet" : "/loud")
            let run = try AnalyzeBinary.run((quiet ? ["--quiet"] : []) + ["--out", out, input])
            XCTAssertEqual(run.status, 0, run.stderr)
            let lines = run.stderr.split(separator: "\n", omittingEmptySubsequences: false)
            XCTAssertEqual(lines.count, quiet ? 3 : 4, run.stderr)
            XCTAssertEqual(lines[0], "analyze: warning: '\(input)' looks like zstd data, which analyze does not decompress "
                           + "(it reads gzip and plain NDJSON): its bytes were read as text lines; decompress it first, or recompress it with gzip")
            XCTAssertEqual(lines[1], "analyze: warning: every one of the 3 lines was rejected (invalid_json 3); "
                           + "is this an Adapty event export? rejects.csv says which line failed and why")
            if !quiet { XCTAssertTrue(lines[2].hasPrefix("analyze: 1 file(s), 3 lines, 0 events"), run.stderr) }
            let quality = try String(contentsOfFile: out + "/quality.csv", encoding: .utf8)
            XCTAssertTrue(quality.contains("\nlines,3\n") && quality.contains("\nrejected_invalid_json,3\n"), quality)
        }
        // From a pipe that delivers the magic number in pieces: the same
        // warning (regression: only the first read's bytes were looked at).
        let piped = try shell(#"(head -c 2 "$1"; sleep 0.3; tail -c +3 "$1") | "$0" --quiet --out "$2" -"#,
                              [AnalyzeBinary.url.path, input, scratch.path + "/piped"])
        XCTAssertEqual(piped.status, 0, piped.stderr)
        XCTAssertTrue(piped.stderr.hasPrefix("analyze: warning: '-' looks like zstd data"), piped.stderr)
        // Over --max-reject-rate: the format is still named, before the error.
        let run = try AnalyzeBinary.run(["--quiet", "--max-reject-rate", "0.5", "--out", scratch.path + "/failed", input])
        XCTAssertEqual(run.status, 3, run.stderr)
        XCTAssertTrue(run.stderr.hasPrefix("analyze: warning: '\(input)' looks like zstd data"), run.stderr)
        XCTAssertTrue(run.stderr.contains("\nanalyze: 3 of 3 lines rejected (100.00 %: invalid_json 3)"), run.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: scratch.path + "/failed/quality.csv"))
    }

    /// A gzipped tar archive of exports is gzip, so it is read; but its
    /// headers and padding become text around the files' lines, and the
    /// first line of each file is lost into a header's line. The run names
    /// the archive in a warning, in each format tar writes (v7 has no magic);
    /// an export with no archive gets none.
    func testATarArchiveIsNamedInAWarning() throws {
        let scratch = Scratch()
        let events = (1...4).map { #"{"event_id":"e\#($0)","event_type":"logout","timestamp":0,"device_id":"d","profile_id":"p"}"# }
        _ = scratch.write("day.ndjson", Data((events.joined(separator: "\n") + "\n").utf8))
        for format in ["gnu", "posix", "v7"] {
            let tar = Process()
            tar.executableURL = URL(fileURLWithPath: "/bin/tar")
            tar.currentDirectoryURL = URL(fileURLWithPath: scratch.path)
            tar.arguments = ["--format=\(format)", "-czf", "\(format).tar.gz", "day.ndjson"]
            try tar.run()
            tar.waitUntilExit()
            XCTAssertEqual(tar.terminationStatus, 0, format)
            let run = try AnalyzeBinary.run(["--quiet", "--out", scratch.path + "/out-\(format)", scratch.path + "/\(format).tar.gz"])
            XCTAssertEqual(run.status, 0, run.stderr)
            XCTAssertEqual(run.stderr, "analyze: warning: '\(scratch.path)/\(format).tar.gz' holds a tar archive, which analyze does not unpack: "
                           + "its headers were read as text, so lines were rejected and events may be missing; unpack it and give the files instead\n")
            let quality = try String(contentsOfFile: scratch.path + "/out-\(format)/quality.csv", encoding: .utf8)
            XCTAssertTrue(quality.contains("\nevents,3\n"), format + ": " + quality)
        }
        let plain = try AnalyzeBinary.run(["--quiet", "--out", scratch.path + "/plain", scratch.path + "/day.ndjson"])
        XCTAssertEqual(plain.status, 0, plain.stderr)
        XCTAssertEqual(plain.stderr, "")
    }

    /// A path need not be UTF-8 on Linux: a file named `caf\xe9.ndjson`, given
    /// as an argument or found in a directory whose own name is not UTF-8, is
    /// opened by its bytes; reports show the byte as U+FFFD, so the CSVs stay
    /// UTF-8 (forty-first session: such a path could not be opened, exit 2).
    func testPathsThatAreNotUTF8AreOpenedByTheirBytes() throws {
        let scratch = Scratch()
        let good = #"{"event_id":"e1","event_type":"sdk_activate","timestamp":"2026-11-01T10:00:00Z","device_id":"d1","profile_id":"p1"}"#
        let bad = #"{"event_id":"e2""#
        // The shell makes the names and passes them on as bytes (Process takes Strings).
        let script = #"""
            set -e
            cd "$1"
            name="caf$(printf '\351').ndjson"; dir="d$(printf '\351')r"
            mkdir "$dir"
            printf '%s\n%s\n' "$2" "$3" > "$name"
            cp "$name" "$dir/$name"
            "$4" --quiet --out by-argument "$name"
            "$4" --quiet --out by-directory "$dir"
            status=0; "$4" --quiet --out "$dir-out" "$name" 2> out-error || status=$?
            test "$status" = 1 && test ! -e "$dir-out"
            """#
        let made = try shell(script, ["sh", scratch.path, good, bad, AnalyzeBinary.url.path])
        XCTAssertEqual(made.status, 0, made.stderr)
        // An --out that is not UTF-8: exit 1 (above), and nothing written anywhere.
        XCTAssertEqual(try String(contentsOfFile: scratch.path + "/out-error", encoding: .utf8),
                       "analyze: the --out directory 'd\u{FFFD}r-out' is not valid UTF-8; give a directory whose name is valid UTF-8\n"
                           + "analyze: see 'analyze --help'\n")
        XCTAssertEqual(Set(try FileManager.default.contentsOfDirectory(atPath: scratch.path)),
                       ["by-argument", "by-directory", "caf\u{FFFD}.ndjson", "d\u{FFFD}r", "out-error"])
        for (out, shown) in [("by-argument", "caf\u{FFFD}.ndjson"), ("by-directory", "d\u{FFFD}r/caf\u{FFFD}.ndjson")] {
            let quality = try String(contentsOfFile: scratch.path + "/" + out + "/quality.csv", encoding: .utf8)
            XCTAssertTrue(quality.contains("\nevents,1\n") && quality.contains("\nfiles,1\n"), quality)
            let rejects = try String(contentsOfFile: scratch.path + "/" + out + "/rejects.csv", encoding: .utf8)
            XCTAssertEqual(rejects, "file,line,reason\n\(shown),2,invalid_json\n")
        }
    }

    func testStandardInputIsReadAsDash() throws {
        let scratch = Scratch()
        let out = scratch.path + "/out"
        let gz = try Data(contentsOf: URL(fileURLWithPath: sample("events.ndjson.gz")))
        let piped = try AnalyzeBinary.run(["--quiet", "--out", out, "-"], stdin: gz)
        XCTAssertEqual(piped.status, 0, piped.stderr)
        let fromFile = scratch.path + "/file"
        XCTAssertEqual(try AnalyzeBinary.run(["--quiet", "--out", fromFile, sample("events.ndjson.gz")]).status, 0)
        for name in ["installs.csv", "profile_switches.csv", "quiz_answers.csv"] {
            XCTAssertEqual(FileManager.default.contents(atPath: out + "/" + name),
                           FileManager.default.contents(atPath: fromFile + "/" + name), name)
        }
        let rejects = try String(contentsOfFile: out + "/rejects.csv", encoding: .utf8)
        XCTAssertTrue(rejects.split(separator: "\n").dropFirst().allSatisfy { $0.hasPrefix("-,") })
    }

    /// A pipe named twice (`-` and `/dev/stdin` for one pipe, a FIFO given
    /// twice) is a usage error: its two readers took part of its bytes each,
    /// and the counts came out wrong, different from run to run, with exit 0
    /// (found by a review). Standard input from a regular file is still read
    /// twice, as any file named twice is.
    func testAPipeNamedTwiceIsAUsageError() throws {
        let scratch = Scratch()
        let out = scratch.path + "/out"
        let gz = try Data(contentsOf: URL(fileURLWithPath: sample("events.ndjson.gz")))
        // A pipe that analyze leaves unread: written by `cat`, not by this
        // process (which a write to a closed pipe would end).
        let piped = try Child(AnalyzeBinary.url.path, ["--quiet", "--out", out, "-", "/dev/stdin"],
                              stdin: .command("exec cat '\(sample("events.ndjson.gz"))'")).wait(timeout: 60)
        XCTAssertEqual(piped.exitCode, 1, piped.stderr)
        XCTAssertTrue(piped.stderr.hasPrefix("analyze: '/dev/stdin' and '-' are the same pipe; a pipe can be read only once\n"),
                      piped.stderr)
        let fifo = scratch.path + "/fifo"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        // (Read, the FIFO would block for want of a writer: `wait` ends that.)
        let twice = try Child(AnalyzeBinary.url.path, ["--quiet", "--out", out, fifo, fifo]).wait(timeout: 60)
        XCTAssertEqual(twice.exitCode, 1, twice.stderr)
        XCTAssertTrue(twice.stderr.hasPrefix("analyze: '\(fifo)' is given twice; a pipe can be read only once\n"), twice.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))

        let fromFile = try Child.run("/bin/sh", ["-c", "exec \"$0\" --quiet --out \"$1\" - /dev/stdin < \"$2\"",
                                                AnalyzeBinary.url.path, out, sample("events.ndjson.gz")])
        XCTAssertEqual(fromFile.exitCode, 0, fromFile.stderr)
        let quality = try String(contentsOfFile: out + "/quality.csv", encoding: .utf8)
        XCTAssertTrue(quality.contains("\nfiles,2\nbytes_read,\(2 * gz.count)\n"), quality)
    }

    func testUnwritableOutputIsAnErrorBeforeReading() throws {
        let scratch = Scratch()
        let file = scratch.write("plain-file", Data("x".utf8))
        let run = try AnalyzeBinary.run(["--out", file, sample("events.ndjson.gz")])
        XCTAssertEqual(run.status, 2)
        XCTAssertTrue(run.stderr.contains(file), run.stderr)
        // A name too long to create is found before the input, whose damage is
        // then never reached (forty-first session: found after reading it).
        let truncated = scratch.write("truncated.ndjson.gz", Data([0x1f, 0x8b, 0x08, 0]))
        // Short names, but a path that leaves no room for the temporary files'
        // names within PATH_MAX: 4 080 bytes of 4 096, and 4 042, where the
        // longest temporary name ("/.profile_switches.csv.tmp-", a PID of ten
        // digits, "-" and 16 hex digits: 54 bytes) would fill all 4 096 and
        // leave none for its NUL (found by mutation testing).
        func deep(_ length: Int) -> String {
            var path = scratch.path
            while path.utf8.count + 201 < length { path += "/" + String(repeating: "e", count: 200) }
            path += "/" + String(repeating: "f", count: length - path.utf8.count - 1)
            XCTAssertEqual(path.utf8.count, length)
            return path
        }
        for out in [scratch.path + "/" + String(repeating: "n", count: 300) + "/x",
                    scratch.path + "/" + String(repeating: "m", count: 256), deep(4_080), deep(4_096 - 54)] {
            let early = try AnalyzeBinary.run(["--out", out, truncated])
            XCTAssertEqual(early.status, 2)
            XCTAssertTrue(early.stderr.contains("File name too long") && !early.stderr.contains("truncated"), early.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: out))
        }
    }

    /// SPEC §4.1 zero-fills installs.csv from the first install day to the last, so
    /// two installs dated 0001-01-01 and 9999-12-31 make 3 652 059 rows (62 MB); the
    /// binary streams them to disk (docs/data-model.md gives its time and memory).
    func testInstallsOverTheWholeDateRangeAreWrittenInFull() throws {
        let scratch = Scratch()
        let out = scratch.path + "/out"
        let input = scratch.write("span.ndjson", Data("""
            {"event_type":"sdk_activate","event_id":"e1","timestamp":"9999-12-31T23:59:59Z","profile_id":"p2","device_id":"d2"}
            {"event_type":"sdk_activate","event_id":"e2","timestamp":"0001-01-01T00:00:00Z","profile_id":"p1","device_id":"d1"}

            """.utf8))
        let run = try AnalyzeBinary.run(["--quiet", "--out", out, input])
        XCTAssertEqual(run.status, 0, run.stderr)
        // Read at offsets, not whole: the 62 MB file would raise this test
        // process's own peak memory, which other tests' measurements must not see.
        let installs = try FileHandle(forReadingFrom: URL(fileURLWithPath: out + "/installs.csv"))
        defer { try? installs.close() }
        func bytes(at offset: Int, count: Int) throws -> Data {
            try installs.seek(toOffset: UInt64(offset))
            return try installs.read(upToCount: count) ?? Data()
        }
        let header = Data("date,by_device_id,by_customer_user_id,by_profile_id\n".utf8)
        let days = 3_652_059
        // Every row is `YYYY-MM-DD,n,n,n\n`, 17 bytes, so row k starts at a known offset.
        XCTAssertEqual(try installs.seekToEnd(), UInt64(header.count + 17 * days))
        func row(_ k: Int) throws -> String {
            String(decoding: try bytes(at: header.count + 17 * k, count: 17), as: UTF8.self)
        }
        XCTAssertEqual(try bytes(at: 0, count: header.count), header)
        XCTAssertEqual(try row(0), "0001-01-01,1,0,1\n")
        XCTAssertEqual(try row(1), "0001-01-02,0,0,0\n")
        XCTAssertEqual(try row(2_025 * 365 + 491), "2026-01-01,0,0,0\n")  // 491 leap days in the years 1–2025
        XCTAssertEqual(try row(days - 2), "9999-12-30,0,0,0\n")
        XCTAssertEqual(try row(days - 1), "9999-12-31,1,0,1\n")
        XCTAssertEqual(Set(try FileManager.default.contentsOfDirectory(atPath: out)), Set(csvNames),
                       "no temporary files are left behind")
    }

    /// Directories made for --out get 0755 less the umask, as `mkdir -p`
    /// makes them.
    func testNewOutputDirectoriesGetTheUsualMode() throws {
        let scratch = Scratch()
        let out = scratch.path + "/new/out"
        let run = try AnalyzeBinary.run(["--quiet", "--out", out, sample("events.ndjson.gz")])
        XCTAssertEqual(run.status, 0, run.stderr)
        let mask = umask(0o022)
        umask(mask)
        for path in [scratch.path + "/new", out] {
            var info = stat()
            XCTAssertEqual(stat(path, &info), 0)
            XCTAssertEqual(info.st_mode & 0o7777, 0o755 & ~mask, path)
        }
    }

    /// A dangling symbolic link given as --out with a trailing slash is named
    /// as such, also when its name is one byte long (`l/`, relative).
    func testAOneByteDanglingLinkWithATrailingSlashIsNamed() throws {
        let scratch = Scratch()
        XCTAssertEqual(symlink(scratch.path + "/missing", scratch.path + "/l"), 0)
        let run = try AnalyzeBinary.run(["--out", "l/", sample("events.ndjson.gz")], in: scratch.path)
        XCTAssertEqual(run.status, 2)
        XCTAssertEqual(run.stderr, "analyze: cannot write to 'l/': a symbolic link to nothing\n")
    }

    /// An --out below an existing file that is not a directory, even an
    /// executable one, is refused before the input is read.
    func testAnOutputBelowAnExecutableFileIsRefusedBeforeReading() throws {
        let scratch = Scratch()
        let file = scratch.write("a-program", Data("#!/bin/sh\n".utf8))
        XCTAssertEqual(chmod(file, 0o755), 0)
        let truncated = scratch.write("truncated.ndjson.gz", Data([0x1f, 0x8b, 0x08, 0]))
        let run = try AnalyzeBinary.run(["--out", file + "/out", truncated])
        XCTAssertEqual(run.status, 2)
        XCTAssertEqual(run.stderr, "analyze: cannot create '\(file)/out': '\(file)' is not a writable directory\n")
    }

    /// Warnings about inputs in other formats come in input order, whichever
    /// input's worker finishes first (here the small second one, beside a
    /// large first one).
    func testForeignFormatWarningsComeInInputOrder() throws {
        let scratch = Scratch()
        let large = Data([0x28, 0xB5, 0x2F, 0xFD, 0x0A]) + Data(String(repeating: "{\"k\":1}\n", count: 400_000).utf8)
        let first = scratch.write("a.ndjson.zst", large)
        let second = scratch.write("b.ndjson.xz", Data([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00, 0x0A]))
        for round in 0..<3 {
            let run = try AnalyzeBinary.run(["--quiet", "--threads", "2", "--out", scratch.path + "/out\(round)", first, second])
            XCTAssertEqual(run.status, 0, run.stderr)
            let warnings = run.stderr.split(separator: "\n").filter { $0.contains("looks like") }
            XCTAssertEqual(warnings.count, 2, run.stderr)
            XCTAssertTrue(warnings.first?.hasPrefix("analyze: warning: '\(first)' looks like zstd data") ?? false, "round \(round): \(run.stderr)")
            XCTAssertTrue(warnings.last?.hasPrefix("analyze: warning: '\(second)' looks like xz data") ?? false, "round \(round): \(run.stderr)")
        }
    }

    /// A socket is read only once too: one named twice is refused as a pipe
    /// is, before anything is read. Found by mutation testing.
    func testASocketNamedTwiceIsAUsageError() throws {
        let scratch = Scratch()
        let socketPath = scratch.path + "/sock"
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let pathBytes = Array(socketPath.utf8) + [0]
        try XCTSkipIf(pathBytes.count > MemoryLayout.size(ofValue: address.sun_path), "scratch path too long for a socket")
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: pathBytes) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        XCTAssertEqual(bound, 0)
        let out = scratch.path + "/out"
        let run = try AnalyzeBinary.run(["--quiet", "--out", out, socketPath, socketPath])
        XCTAssertEqual(run.status, 1, run.stderr)
        XCTAssertTrue(run.stderr.hasPrefix("analyze: '\(socketPath)' is given twice; a pipe can be read only once\n"), run.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
    }

    /// The summary line counts the run's lines, events, duplicates and
    /// rejects, and names the output directory.
    func testTheSummaryLineCountsWhatTheRunFound() throws {
        let scratch = Scratch()
        let line = #"{"event_id":"e1","event_type":"sdk_activate","timestamp":"2026-11-28T09:15:02Z","device_id":"d","profile_id":"p"}"#
        let input = scratch.write("events.ndjson", Data((String(repeating: line + "\n", count: 3) + "x\n").utf8))
        let run = try AnalyzeBinary.run(["--out", scratch.path + "/out", input])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stderr.hasPrefix("analyze: 1 file(s), 4 lines, 1 events, 2 duplicates, 1 rejected in "), run.stderr)
        XCTAssertTrue(run.stderr.hasSuffix(" s → \(scratch.path)/out\n"), run.stderr)
    }
}
