import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension FailureMatrixTests {
    // MARK: Missing, unreadable and blocked inputs

    func testMissingPathsExitTwoNamingThePath() throws {
        let scratch = Scratch()
        let (out, before) = try establishedOutput(scratch)
        let plain = scratch.write("plain.ndjson", Data("{}\n".utf8))
        symlink(scratch.path + "/nowhere", scratch.path + "/dangling.ndjson")
        symlink(scratch.path + "/loop-b", scratch.path + "/loop-a")
        symlink(scratch.path + "/loop-a", scratch.path + "/loop-b")
        let cases: [(path: String, cause: String)] = [
            (scratch.path + "/missing.ndjson", "No such file or directory"),
            (scratch.path + "/missing-dir/", "No such file or directory"),
            (scratch.path + "/dangling.ndjson", "No such file or directory"),
            (scratch.path + "/loop-a", "Too many levels of symbolic links"),
            (plain + "/child.ndjson", "Not a directory"),
            (plain + "/", "Not a directory"),
            (scratch.path + "/" + String(repeating: "n", count: 5000), "File name too long"),
            ("", "No such file or directory"),
        ]
        for (path, cause) in cases {
            // A good input before it changes nothing: inputs are checked before reading.
            let run = try Child.run(analyze, ["--out", out, example("basic/events.ndjson"), path])
            assertFailure(run, exit: 2, mentions: ["'\(path)'", cause], out: out, before: before, "input \(path.prefix(80))")
        }
    }

    func testUnreadableInputsExitTwo() throws {
        let scratch = Scratch()
        let (out, before) = try establishedOutput(scratch)

        // Opens fine, but read(2) fails with EIO (address 0 is never mapped): an I/O
        // error in the middle of reading, even for root.
        var run = try Child.run(analyze, ["--out", out, "/proc/self/mem"])
        assertFailure(run, exit: 2, mentions: ["'/proc/self/mem'", "byte offset 0", "Input/output error"],
                      out: out, before: before, "/proc/self/mem")

        // Standard input closed, or a directory.
        run = try Child.run(analyze, ["--out", out, "-"], stdin: .closed)
        assertFailure(run, exit: 2, mentions: ["'-'", "Bad file descriptor"], out: out, before: before, "stdin closed")
        run = try Child.run(analyze, ["--out", out, "-"], stdin: .file(scratch.path))
        assertFailure(run, exit: 2, mentions: ["'-'", "Is a directory"], out: out, before: before, "stdin is a directory")

        // Permission bits: root (as these tests usually run) reads a mode-000 file
        // anyway, so this case only means something for other users; /proc/self/mem
        // above covers a read error for root.
        let locked = scratch.write("locked.ndjson", Data("{}\n".utf8))
        chmod(locked, 0)
        if geteuid() != 0 {
            run = try Child.run(analyze, ["--out", out, locked])
            assertFailure(run, exit: 2, mentions: ["'\(locked)'", "Permission denied"], out: out, before: before, "mode 000")
        }
    }

    /// SPEC §1: a directory contributes every matching entry, subdirectories and
    /// dot-files skipped; a file that cannot be opened is fatal, never a silent
    /// partial result. A dangling symlink named `*.ndjson` is neither a subdirectory
    /// nor a dot-file: it is an entry that cannot be opened (the reference
    /// implementation, tools/reference/analyze_ref.py interpretation 4, exits 2).
    func testDirectoryEntryThatCannotBeOpenedIsAnInputError() throws {
        let scratch = Scratch()
        let (out, before) = try establishedOutput(scratch)
        let directory = scratch.path + "/exports"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        try FileManager.default.copyItem(atPath: sampleExport, toPath: directory + "/a.ndjson.gz")
        symlink(scratch.path + "/rotated-away.ndjson", directory + "/b.ndjson")
        let run = try Child.run(analyze, ["--out", out, directory])
        assertFailure(run, exit: 2, mentions: ["b.ndjson"], out: out, before: before, "dangling entry in a directory")
    }

    /// A directory that contributes no file (empty, or holding only other
    /// names, dot-files, subdirectories and FIFOs) is an input error: most
    /// likely an export that did not arrive, whose empty report must not
    /// replace the last good one (a decision: docs/data-model.md).
    func testADirectoryWithNoExportInItIsAnInputError() throws {
        let scratch = Scratch()
        let (out, before) = try establishedOutput(scratch)
        let empty = scratch.path + "/empty"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: false)
        var run = try Child.run(analyze, ["--out", out, empty])
        assertFailure(run, exit: 2, mentions: ["no export files", "'\(empty)'"], out: out, before: before, "empty directory")
        XCTAssertTrue(run.stderr.hasSuffix("in directory '\(empty)'\n"), run.stderr)

        let others = scratch.path + "/others"
        try FileManager.default.createDirectory(atPath: others + "/sub.ndjson", withIntermediateDirectories: true)
        XCTAssertEqual(mkfifo(others + "/pipe.ndjson", 0o644), 0)
        try FileManager.default.copyItem(atPath: example("basic/events.ndjson"), toPath: others + "/.hidden.ndjson")
        try FileManager.default.copyItem(atPath: example("basic/events.ndjson"), toPath: others + "/events.json")
        try FileManager.default.copyItem(atPath: example("basic/events.ndjson"), toPath: others + "/day.ndjson.gz.part")
        run = try Child.run(analyze, ["--out", out, others], timeout: 60)
        assertFailure(run, exit: 2, mentions: ["no export files", "'\(others)'"], out: out, before: before, "no export names")
        // What it holds instead is counted (dot-files are not), so that a
        // folder of day folders says why nothing was found; a file that
        // looks like an export in another form is named.
        XCTAssertTrue(run.stderr.hasSuffix("'\(others)', which holds 1 subdirectory (not searched) and 3 other files; "
                                           + "'day.ndjson.gz.part' looks like an export in another form\n"), run.stderr)

        // Also beside a directory that has exports: the missing one is named.
        let full = scratch.path + "/full"
        try FileManager.default.createDirectory(atPath: full, withIntermediateDirectories: false)
        try FileManager.default.copyItem(atPath: example("basic/events.ndjson"), toPath: full + "/events.ndjson")
        run = try Child.run(analyze, ["--out", out, full, empty])
        assertFailure(run, exit: 2, mentions: ["'\(empty)'"], out: out, before: before, "one of two directories empty")
    }

    /// A path is printed on one line, its control characters escaped: a line
    /// feed or a terminal escape sequence in a file name neither splits the
    /// message nor reaches the terminal.
    func testControlCharactersInAPathAreEscapedInMessages() throws {
        let scratch = Scratch()
        let (out, before) = try establishedOutput(scratch)
        let missing = scratch.path + "/no\npe\u{1B}[31m.ndjson.gz"
        let run = try Child.run(analyze, ["--out", out, missing])
        assertFailure(run, exit: 2, mentions: [scratch.path + #"/no\npe\x1B[31m.ndjson.gz"#], out: out, before: before,
                      "control characters in a path")
        XCTAssertEqual(run.stderr.split(separator: "\n", omittingEmptySubsequences: false).count, 2, "one line: \(run.stderr)")
        XCTAssertFalse(run.stderr.contains("\u{1B}"), run.stderr)
    }

    func testDirectoriesWhereFilesAreExpectedAndFilesWhereDirectoriesAre() throws {
        let scratch = Scratch()
        let (out, before) = try establishedOutput(scratch)

        // Inside an input directory: a subdirectory and a FIFO with export names are
        // skipped (not read: a FIFO would block forever), the real file is read.
        let directory = scratch.path + "/exports"
        try FileManager.default.createDirectory(atPath: directory + "/sub.ndjson", withIntermediateDirectories: true)
        XCTAssertEqual(mkfifo(directory + "/pipe.ndjson", 0o644), 0)
        try FileManager.default.copyItem(atPath: example("basic/events.ndjson"), toPath: directory + "/events.ndjson")
        let fresh = scratch.path + "/from-directory"
        var run = try Child.run(analyze, ["--quiet", "--out", fresh, directory], timeout: 60)
        XCTAssertEqual(run.exitCode, 0, run.stderr)
        XCTAssertEqual(try String(contentsOfFile: fresh + "/quality.csv", encoding: .utf8).split(separator: "\n")[1], "files,1")

        // --out is an existing regular file, a character device, below a regular file.
        let file = scratch.write("a-file", Data("keep me".utf8))
        for target in [file, "/dev/null", file + "/out"] {
            run = try Child.run(analyze, ["--out", target, example("basic/events.ndjson")])
            XCTAssertEqual(run.exitCode, 2, "\(target): \(run.stderr)")
            XCTAssertTrue(run.stderr.hasPrefix("analyze: ") && run.stderr.contains(target), run.stderr)
        }
        XCTAssertEqual(FileManager.default.contents(atPath: file), Data("keep me".utf8))

        // --out that cannot be created even by root (/proc takes no new entries).
        run = try Child.run(analyze, ["--out", "/proc/analyze-failure-matrix", example("basic/events.ndjson")])
        assertFailure(run, exit: 2, mentions: ["/proc/analyze-failure-matrix"], out: "/proc/analyze-failure-matrix",
                      before: nil, "--out under /proc")

        // --out is a dangling symlink, one in a loop, or below one: nothing to
        // write into, said before the input is read (standard input, which
        // the feeder never closes: a check after reading would hang). Found
        // by a review: said only at the end, naming a temporary file.
        symlink(scratch.path + "/missing/target", scratch.path + "/out-link")
        symlink(scratch.path + "/loop", scratch.path + "/loop")
        for (target, reason) in [
            ("out-link", "cannot write to '\(scratch.path)/out-link': a symbolic link to nothing"),
            ("loop", "cannot write to '\(scratch.path)/loop': a symbolic link in a loop"),
            ("out-link/", "cannot write to '\(scratch.path)/out-link/': a symbolic link to nothing"),
            ("out-link/below", "cannot create '\(scratch.path)/out-link/below': '\(scratch.path)/out-link' is a symbolic link to nothing"),
        ] {
            let child = try Child(analyze, ["--out", scratch.path + "/" + target, "-"], stdin: .command("exec sleep 600"))
            run = child.wait(timeout: 60)
            XCTAssertEqual(run.exitCode, 2, run.stderr)
            XCTAssertEqual(run.stderr, "analyze: \(reason)\n")
        }

        // Missing parents are created (SPEC §5: created if missing).
        let deep = scratch.path + "/new/deeper/out"
        run = try Child.run(analyze, ["--quiet", "--out", deep, example("basic/events.ndjson")])
        XCTAssertEqual(run.exitCode, 0, run.stderr)
        XCTAssertEqual(Scratch.snapshot(deep), before, "a new --out gets the same files as an existing one")

        // A non-root user cannot write into a mode-555 directory; root can.
        if geteuid() != 0 {
            let locked = scratch.path + "/locked"
            try FileManager.default.createDirectory(atPath: locked, withIntermediateDirectories: false)
            chmod(locked, 0o555)
            run = try Child.run(analyze, ["--out", locked + "/out", example("basic/events.ndjson")])
            assertFailure(run, exit: 2, mentions: [locked], out: locked + "/out", before: nil, "unwritable parent")
        }
        assertOutput(out, equals: before, "the established --out")
    }

    /// After an input fails, the inputs after it are not even opened: a FIFO
    /// there that no one writes would block the open for ever. Found by
    /// mutation testing.
    func testAnInputAfterAFailedOneIsNotOpened() throws {
        let scratch = Scratch()
        let truncated = scratch.write("a.ndjson.gz", Data([0x1f, 0x8b, 0x08, 0]))
        let fifo = scratch.path + "/b.ndjson"
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        let run = try Child(analyze, ["--quiet", "--threads", "1", "--out", scratch.path + "/out", truncated, fifo]).wait(timeout: 30)
        XCTAssertEqual(run.exitCode, 2, run.stderr)
        XCTAssertTrue(run.stderr.contains("a.ndjson.gz") && run.stderr.contains("truncated"), run.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: scratch.path + "/out"))
    }
}
