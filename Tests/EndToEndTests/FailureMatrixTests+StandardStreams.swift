import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension FailureMatrixTests {
    // MARK: Standard streams

    func testClosedStandardStreamsDoNotChangeTheRun() throws {
        let scratch = Scratch()
        let reference = scratch.path + "/reference"
        XCTAssertEqual(try Child.run(analyze, ["--quiet", "--out", reference, sampleExport]).exitCode, 0)
        let expected = Scratch.snapshot(reference)
        // With 0, 1 or 2 closed, the files the run opens get those numbers; nothing
        // meant for standard error may end up in them.
        let variants: [(String, Child.Input, Child.Output, Child.Output)] = [
            ("stdout closed", .null, .closed, .capture),
            ("stderr closed", .null, .capture, .closed),
            ("all three closed", .closed, .closed, .closed),
        ]
        for (name, input, output, error) in variants {
            let out = scratch.path + "/" + name.replacingOccurrences(of: " ", with: "-")
            let run = try Child.run(analyze, ["--out", out, sampleExport], stdin: input, stdout: output, stderr: error)
            XCTAssertEqual(run.exitCode, 0, "\(name): \(run.stderr)")
            assertOutput(out, equals: expected, name)
        }
        // A failing run with standard error closed still fails.
        let run = try Child.run(analyze, ["--out", scratch.path + "/x", scratch.path + "/missing"], stderr: .closed)
        XCTAssertEqual(run.exitCode, 2)
    }

    /// On a terminal the progress line is drawn in place, never wider than one
    /// row (a wrapped line is not erased by `\r` and `ESC [K`: the old rows
    /// stayed on screen), and erased before the summary; standard output
    /// stays empty. Regression: the line did not fit 80 columns for large
    /// inputs, nor any narrower terminal. A terminal that reports 0 columns
    /// (a serial console, a pty nobody sized) is taken as 80 wide, so the
    /// whole line shows. Found by mutation testing: 0 taken as the width cut
    /// the line to its first character, and no test saw it.
    func testProgressLineOnATerminalFitsOneRowAndIsErasedBeforeTheSummary() throws {
        let scratch = Scratch()
        let text = try Data(contentsOf: URL(fileURLWithPath: example("basic/events.ndjson")))
        for (columns, width) in [(30, 30), (0, 80)] {
            let child = try Child(analyze, ["--out", scratch.path + "/out\(columns)", "-"], stdin: .pipe,
                                  stderr: .terminal(columns: columns))
            child.writeToStandardInput(text)
            // Standard input stays open until two lines were drawn (or 60 s, a failure below).
            _ = child.waitForTerminal(toShow: " decoded", times: 2, timeout: 60)
            let run = child.wait()
            XCTAssertEqual(run.exitCode, 0, run.stderr)
            XCTAssertEqual(run.stdout, "")
            let pieces = run.stderr.components(separatedBy: "\r")
            let erase = "\u{1B}[K"
            let draws = pieces.filter { $0.hasPrefix("analyze: ") && $0.hasSuffix(erase) }
            XCTAssertFalse(draws.isEmpty, "no progress line drawn at \(columns) columns: \(run.stderr.debugDescription)")
            for draw in draws {
                XCTAssertLessThan(draw.utf8.count - erase.utf8.count, width, draw.debugDescription)
                XCTAssertTrue(draw.hasPrefix("analyze: ") && draw.contains(" decoded"), draw.debugDescription)
                // The whole line fits 79 columns here (a few bytes decoded, no ETA from a pipe).
                if width == 80 { XCTAssertTrue(draw.contains(" lines/s"), draw.debugDescription) }
            }
            guard let summary = pieces.firstIndex(where: { $0.contains(" events, ") }) else {
                XCTFail("no summary at \(columns) columns: \(run.stderr.debugDescription)")
                continue
            }
            // "\r ESC[K" then the summary: the line erased first, the summary in its place.
            XCTAssertTrue(pieces[summary].hasPrefix(erase + "analyze: "), "the progress line was not erased before the summary")
            XCTAssertEqual(pieces.filter { $0.contains(" events, ") }.count, 1)
        }
    }

    /// No progress line with `--quiet` on a terminal (nothing at all on
    /// standard error), nor on a standard error that is not a terminal (only
    /// the summary): each run is held open for three of the progress timer's
    /// half-second ticks, in which the test above sees two lines drawn.
    func testNoProgressLineWhenQuietOrNotATerminal() throws {
        let scratch = Scratch()
        let text = try Data(contentsOf: URL(fileURLWithPath: example("basic/events.ndjson")))
        let quiet = try Child(analyze, ["--quiet", "--out", scratch.path + "/quiet", "-"], stdin: .pipe,
                              stderr: .terminal(columns: 80))
        quiet.writeToStandardInput(text)
        XCTAssertFalse(quiet.waitForTerminal(toShow: "analyze", timeout: 1.5), "--quiet drew on the terminal")
        let quietRun = quiet.wait()
        XCTAssertEqual(quietRun.exitCode, 0, quietRun.stderr)
        XCTAssertEqual(quietRun.stderr, "", "--quiet wrote to a terminal")

        let piped = try Child(analyze, ["--out", scratch.path + "/piped", "-"], stdin: .pipe, stderr: .capture)
        piped.writeToStandardInput(text)
        Thread.sleep(forTimeInterval: 1.5)
        let pipedRun = piped.wait()
        XCTAssertEqual(pipedRun.exitCode, 0, pipedRun.stderr)
        XCTAssertFalse(pipedRun.stderr.contains("\r") || pipedRun.stderr.contains("\u{1B}"), pipedRun.stderr.debugDescription)
        XCTAssertFalse(pipedRun.stderr.contains(" decoded"), pipedRun.stderr.debugDescription)
        XCTAssertEqual(pipedRun.stderr.components(separatedBy: "\n").filter { !$0.isEmpty }.count, 1,
                       "only the summary: \(pipedRun.stderr.debugDescription)")
        XCTAssertTrue(pipedRun.stderr.hasPrefix("analyze: ") && pipedRun.stderr.contains(" events, "), pipedRun.stderr)
    }

    func testHelpIntoAReaderThatStopsEarly() throws {
        // `analyze --help | head -c1`: the help fits in the pipe buffer, so the write
        // succeeds before the reader goes away.
        let scratch = Scratch()
        let status = scratch.path + "/status"
        let run = try Child.run("/bin/sh", ["-c", "{ \"$0\" --help; echo $? > \"$1\"; } | head -c1", analyze, status])
        XCTAssertEqual(run.exitCode, 0, run.stderr)
        XCTAssertEqual(run.stdout, "U")
        XCTAssertEqual(run.stderr, "")
        XCTAssertEqual(try String(contentsOfFile: status, encoding: .utf8), "0\n", "analyze's own exit status")
    }

    /// When what `--help` / `--version` print cannot be written (standard output
    /// closed, or a pipe whose reader is gone) the command did not do what it was
    /// asked: exit 2, an I/O error (SPEC §6), with a message; never a silent 0 and
    /// never death by SIGPIPE.
    func testHelpAndVersionReportAnUnwritableStandardOutput() throws {
        for flag in ["--help", "--version"] {
            for (name, output) in [("closed", Child.Output.closed), ("broken pipe", .brokenPipe)] {
                let run = try Child.run(analyze, [flag], stdout: output)
                XCTAssertNil(run.signal, "\(flag), stdout \(name): killed by signal \(run.signal ?? 0)")
                XCTAssertEqual(run.exitCode, 2, "\(flag), stdout \(name): exit \(run.exitCode.map(String.init) ?? "-"), stderr '\(run.stderr)'")
                XCTAssertTrue(run.stderr.hasPrefix("analyze: ") && run.stderr.contains("standard output"),
                              "\(flag), stdout \(name): stderr '\(run.stderr)'")
            }
        }
    }
}
