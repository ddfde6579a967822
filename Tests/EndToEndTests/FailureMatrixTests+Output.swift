import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension FailureMatrixTests {
    // MARK: Output failures

    /// Many rejects make rejects.csv the biggest file by far, so it is the one that
    /// does not fit: the earlier temporaries were written and must be removed.
    private func inputWithLargeRejects(_ scratch: Scratch) -> String {
        var text = try! String(contentsOfFile: example("basic/events.ndjson"), encoding: .utf8)
        text += String(repeating: "not json\n", count: 5000)
        return scratch.write("many-rejects.ndjson", Data(text.utf8))
    }

    /// Runs `analyze --quiet --out OUT INPUT` and sends SIGTERM the moment
    /// `OUT` exists: spinning, not sleeping, so the signal lands within
    /// microseconds of the `mkdir`.
    private func runSignalledAsItAppears(out: String, input: String) throws -> ChildResult {
        let child = try Child(analyze, ["--quiet", "--out", out, input])
        let deadline = Child.monotonicSeconds() + 60
        while access(out, F_OK) != 0 && Child.monotonicSeconds() < deadline {}
        child.send(SIGTERM)
        return child.wait(timeout: 60)
    }

    func testFileSizeLimitFailsTheWriteAndLeavesOutputsUntouched() throws {
        // ThreadSanitizer's runtime itself dies of SIGBUS under a file-size limit,
        // before `analyze` runs; the full-device test covers the same path there.
        try XCTSkipIf(Sanitizer.thread, "RLIMIT_FSIZE crashes the ThreadSanitizer runtime")
        let scratch = Scratch()
        let (out, before) = try establishedOutput(scratch)
        let input = inputWithLargeRejects(scratch)
        // RLIMIT_FSIZE: `analyze` ignores SIGXFSZ itself, so write(2) fails with
        // EFBIG past 20 KiB (ulimit -f counts 512-byte blocks), the way it fails
        // with ENOSPC on a full device. Works without privileges. The signal
        // reaches `analyze` at its default action, as under cron or systemd
        // (`Child` starts every child so; `trap - XFSZ` only says it here).
        // Regression: with the default action the run was killed (exit 153, no
        // message) and left its temporary files in OUT.
        let run = try Child.run("/bin/sh", ["-c", "trap - XFSZ; ulimit -f 40; exec \"$0\" \"$@\"", analyze, "--out", out, input])
        assertFailure(run, exit: 2, mentions: ["rejects.csv", "File too large"], out: out, before: before, "RLIMIT_FSIZE")
    }

    /// Too few free file descriptors (a low `ulimit -n`, or a job runner that
    /// leaks descriptors into its children) is an input error named before
    /// reading. Regression: the input took the last free descriptor, then
    /// Dispatch could not open its own three and stopped the process with
    /// SIGILL and no message (found by a review).
    func testTooFewFreeFileDescriptorsAreAnInputErrorNotACrash() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit"), "needs prlimit")
        let scratch = Scratch()
        let (out, before) = try establishedOutput(scratch)
        // Descriptors 0-2 open (a child gets no others), so a limit of 3 +
        // `free` leaves `free` of them. One input: 3 for Dispatch, 1 its
        // manager thread opens for a moment, and 1 for the input, whatever the
        // threads (one worker reads one input at a time).
        for (free, threads) in [(1, "1"), (4, "1"), (4, "2")] {
            let run = try Child.run("/usr/bin/prlimit", ["--nofile=\(3 + free)", analyze, "--threads", threads, "--out", out, sampleExport])
            assertFailure(run, exit: 2, mentions: ["only \(free) file descriptor", "of the \(3 + free) this process may open (ulimit -n)",
                                                   "this run needs 5 (4 for its thread pool and 1 for the input it reads)"],
                          out: out, before: before, "\(free) free")
        }
        // Enough of them: the run goes ahead (regression: the check asked
        // for one per worker, and refused runs that had worked).
        let run = try Child.run("/usr/bin/prlimit", ["--nofile=8", analyze, "--threads", "2", "--out", out, sampleExport])
        XCTAssertEqual(run.exitCode, 0, run.stderr)
        // On a terminal the progress line's timer starts only after the check
        // (regression: started before it, the timer's thread opened Dispatch's
        // three while the check counted them, and this run, with just enough,
        // was now and then refused: "only 2 … free of the 8; this run needs 3").
        // So the check counts none of them open, whatever the schedule: 3 + 1
        // + 1 needed, 5 free. Several runs, as the old failure was a race.
        for round in 0..<5 {
            let onTerminal = try Child("/usr/bin/prlimit", ["--nofile=8", analyze, "--threads", "1", "--out", out, sampleExport],
                                       stderr: .terminal(columns: 80)).wait(timeout: 60)
            XCTAssertEqual(onTerminal.exitCode, 0, "round \(round): \(onTerminal.stderr)")
        }
        XCTAssertNotEqual(Scratch.snapshot(out), before)
        // One fewer: refused, with the same numbers every time (with the
        // timer started first they depended on how far its thread had got).
        // This process's own descriptors past 2 are not passed on: Child.
        let established = Scratch.snapshot(out)
        for round in 0..<3 {
            let oneShort = try Child("/usr/bin/prlimit", ["--nofile=7", analyze, "--threads", "1", "--out", out, sampleExport],
                                     stderr: .terminal(columns: 200)).wait(timeout: 60)
            XCTAssertEqual(oneShort.exitCode, 2, oneShort.stderr)
            XCTAssertTrue(oneShort.stderr.contains("analyze: only 4 file descriptors are free of the 7 this process may open "
                                                   + "(ulimit -n); this run needs 5 (4 for its thread pool and 1 for the input it reads)"),
                          "round \(round): \(oneShort.stderr)")
        }
        assertOutput(out, equals: established, "on a terminal, one short")
    }

    /// A limit on tasks too tight for the run's threads is an input error
    /// named before reading. Regression: libdispatch, unable to start a
    /// thread, slept and retried for ever, so a nightly run under such a
    /// limit never ended (found by reviews; `pids.max` and `ulimit -v` with
    /// no room for a thread's stack gave the same wait).
    func testTooFewThreadsAreAnInputErrorNotAWaitForEver() throws {
        // The sanitizers' runtimes need threads of their own (LeakSanitizer's
        // at exit fails under the limit and changes the exit status).
        try XCTSkipIf(Sanitizer.address || Sanitizer.thread, "a sanitizer's runtime needs threads of its own")
        // RLIMIT_NPROC counts a user's threads, and binds users other than root.
        try XCTSkipUnless(nobodyCanRunAnalyze(limits: ["--nproc=2"]),
                          "needs root, setpriv, prlimit, and uid 65534 free to run the build under a limit of 2 tasks")
        let scratch = Scratch()
        XCTAssertEqual(chmod(scratch.path, 0o777), 0)
        let out = scratch.path + "/out"
        // Two: the main thread and the one that takes signals leave no room.
        // Three leave room for one thread, and the check starts both that the
        // run needs (found by mutation testing: a check that started one too
        // few passed). `--threads 8` runs as many workers as the machine has
        // cores, up to 8, and the message says "worker" or "workers" to fit
        // their count (found by mutation testing: the two words swapped passed).
        for (tasks, threads) in [(2, "1"), (2, "2"), (2, "8"), (3, "1")] {
            let label = "--threads \(threads) under \(tasks) tasks"
            let run = try Child.run("/usr/bin/prlimit", ["--nproc=\(tasks)"] + Self.asNobody + [
                analyze, "--threads", threads, "--out", out, sampleExport,
            ], timeout: 60)
            assertFailure(run, exit: 2, mentions: [threads == "8" ? "cannot start " : "cannot start 2 threads",
                                                   "pids.max, TasksMax=, ulimit -u"], out: out, before: nil, label)
            guard let found = run.stderr.range(of: #"which a run with [0-9]+ workers? needs:"#, options: .regularExpression) else {
                XCTFail("\(label): no worker count: \(run.stderr)")
                continue
            }
            let phrase = run.stderr[found]
            let workers = Int(phrase.dropFirst("which a run with ".count).prefix(while: { $0.isNumber }))
            if threads == "1" { XCTAssertEqual(workers, 1, "\(label): \(phrase)") }
            XCTAssertEqual(phrase.hasSuffix(" workers needs:"), workers != 1, "\(label): \(phrase)")
        }
        // Four: room for the check's two, and then for Dispatch's manager and
        // one worker beside the main thread and the signals' one, no more. The
        // run ends (exit 0 here; exit 2 where a task of nobody's elsewhere
        // takes a place). Regression: the merged partial was freed on a
        // Dispatch queue whose `async` found no thread to start and retried
        // for ever in the main thread (in about 1 run of 3).
        for attempt in 0..<10 {
            let run = try Child.run("/usr/bin/prlimit", ["--nproc=4"] + Self.asNobody + [
                analyze, "--quiet", "--threads", "2", "--out", out, sampleExport,
            ], timeout: 30)
            XCTAssertNil(run.signal, "attempt \(attempt): \(run.stderr)")
            XCTAssertTrue(run.exitCode == 0 || (run.exitCode == 2 && run.stderr.contains("cannot start 2 threads")),
                          "attempt \(attempt): exit \(run.exitCode.map(String.init) ?? "none"): \(run.stderr)")
        }
    }

    /// A run that fails while writing removes the directories it made for
    /// `--out` (they are empty then); one that existed stays. Regression: a
    /// new `--out` was left behind, empty, by a failed or interrupted run.
    func testAFailedWriteRemovesTheDirectoriesItMade() throws {
        try XCTSkipIf(Sanitizer.thread, "RLIMIT_FSIZE crashes the ThreadSanitizer runtime")
        let scratch = Scratch()
        let input = inputWithLargeRejects(scratch)
        let out = scratch.path + "/new/deeper/out"
        let run = try Child.run("/bin/sh", ["-c", "trap - XFSZ; ulimit -f 40; exec \"$0\" \"$@\"", analyze, "--out", out, input])
        XCTAssertEqual(run.exitCode, 2, run.stderr)
        XCTAssertTrue(run.stderr.contains("File too large"), run.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: scratch.path + "/new"), "a directory made for --out was left")
        XCTAssertTrue(FileManager.default.fileExists(atPath: scratch.path), "a directory that existed was removed")
    }

    /// A signal while the outputs are written removes the temporary files and
    /// the directories made for `--out`.
    func testASignalWhileWritingRemovesTheDirectoriesItMade() throws {
        let scratch = Scratch()
        guard let (run, top) = try runSignalledWhileWriting(scratch, SIGTERM, stopped: { !Self.wroteEverything($0) }) else {
            return XCTFail("no run of 5 was interrupted before its renames")
        }
        XCTAssertEqual(run.exitCode, 143, run.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: top), "a directory made for --out was left")
    }

    /// A signal the moment the output directory appears, repeated: whatever
    /// the run was doing then, nothing it made is left. Regressions: (1) a
    /// directory made and not yet remembered stayed (seen in CI; this test
    /// caught it within 50 runs, 3 tries of 3); (2) with the cleanup moved to
    /// a thread of its own, beside the main thread, a temporary file created
    /// just after its removals stayed (caught within 150 runs, 3 of 3). Not
    /// caught here, seen 2 times in 2000 with a C poller: with the `mkdir`
    /// done under blocked signals, the directories still stayed, the signal
    /// going (as far as we can tell) to a thread just made, whose startup had
    /// not yet blocked it; the thread that takes the signals rules that out.
    func testASignalJustAsTheOutputDirectoryAppearsLeavesNothingBehind() throws {
        let scratch = Scratch()
        let input = rejectsOnlyInput(scratch, lines: 2_000)
        var interrupted = 0
        for attempt in 0..<600 {
            let top = scratch.path + "/new\(attempt)"
            let out = top + "/deeper/out"
            let run = try runSignalledAsItAppears(out: out, input: input)
            if Self.wroteEverything(run) {
                XCTAssertEqual(Set(Scratch.snapshot(out).keys), Self.csvNames, "attempt \(attempt)")
                continue
            }
            interrupted += 1
            XCTAssertEqual(run.exitCode, 143, "attempt \(attempt): \(run.stderr)")
            if FileManager.default.fileExists(atPath: top) {
                let left = (FileManager.default.subpaths(atPath: top) ?? []).sorted()
                return XCTFail("attempt \(attempt): left behind \(left)")
            }
        }
        // Runs caught before their renames are the point of the test (nearly
        // all of them here: each output is flushed with `fsync` first).
        print("FailureMatrixTests: \(interrupted) of 600 runs interrupted before their renames")
        XCTAssertGreaterThan(interrupted, 100)
    }

    /// Temporary outputs are named `.NAME.tmp-PID-TAG`, TAG random per run,
    /// and created, never opened: whatever stands under a name like theirs
    /// is left alone. Regressions: a FIFO under the name (then
    /// `.NAME.tmp-PID`) blocked the `open` while an interrupt waited for it,
    /// so neither Ctrl-C nor SIGTERM ended the run; a symbolic link there was
    /// followed and its target truncated; and, with the name then unlinked
    /// first to make way, another run with the same PID lost its files
    /// (below, `testRunsWithOnePIDInTwoContainersKeepTheirOwnFiles`).
    func testWhatStandsUnderATemporaryNameIsLeftAlone() throws {
        let scratch = Scratch()
        let out = scratch.path + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: false)
        let victim = scratch.write("victim.txt", Data("kept\n".utf8))
        // The shell puts them under its own PID, which analyze keeps by `exec`.
        let script = """
            mkfifo "$1/.installs.csv.tmp-$$" && ln -s "$2" "$1/.quality.csv.tmp-$$" \
            && printf stale > "$1/.rejects.csv.tmp-$$" && exec "$0" --quiet --out "$1" "$3"
            """
        let child = try Child("/bin/sh", ["-c", script, analyze, out, victim, example("basic/events.ndjson")])
        let run = child.wait(timeout: 60)
        XCTAssertEqual(run.exitCode, 0, run.stderr)
        let pid = child.pid
        let planted: Set = [".installs.csv.tmp-\(pid)", ".quality.csv.tmp-\(pid)", ".rejects.csv.tmp-\(pid)"]
        // Names only: reading the FIFO would block.
        XCTAssertEqual(Set(try FileManager.default.contentsOfDirectory(atPath: out)), Self.csvNames.union(planted))
        var info = stat()
        XCTAssertEqual(lstat(out + "/.installs.csv.tmp-\(pid)", &info), 0)
        XCTAssertEqual(info.st_mode & S_IFMT, S_IFIFO)
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: out + "/.quality.csv.tmp-\(pid)"), victim)
        XCTAssertEqual(try String(contentsOfFile: out + "/.rejects.csv.tmp-\(pid)", encoding: .utf8), "stale")
        XCTAssertEqual(try String(contentsOfFile: victim, encoding: .utf8), "kept\n")
        let reference = scratch.path + "/reference"
        XCTAssertEqual(try Child.run(analyze, ["--quiet", "--out", reference, example("basic/events.ndjson")]).exitCode, 0)
        for name in Self.csvNames {
            XCTAssertEqual(FileManager.default.contents(atPath: out + "/" + name),
                           FileManager.default.contents(atPath: reference + "/" + name), name)
        }
    }

    /// Two runs into one `--out` from two containers, each `analyze` being
    /// PID 1 of its own PID namespace (as `docker run` starts it), both
    /// writing at once. Named by PID alone, each run's temporary files were
    /// the other's: 64 pairs in 100 ended with a file missing, a mix of the
    /// two, or a run failing. Made deterministic with a shared lock on the
    /// directory: both runs write their temporary files and wait to rename.
    func testRunsWithOnePIDInTwoContainersKeepTheirOwnFiles() throws {
        guard (try? Child.run("/usr/bin/unshare", ["--pid", "--fork", "/bin/true"]).exitCode) == 0 else {
            throw XCTSkip("no PID namespaces here (unshare --pid needs CAP_SYS_ADMIN)")
        }
        let scratch = Scratch()
        let inputs = [sampleExport, example("basic/events.ndjson")]
        var expected: [[String: Data]] = []
        for (index, input) in inputs.enumerated() {
            let reference = scratch.path + "/reference\(index)"
            XCTAssertEqual(try Child.run(analyze, ["--quiet", "--out", reference, input]).exitCode, 0)
            expected.append(Scratch.snapshot(reference))
        }
        let out = scratch.path + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: false)
        let lock = open(out, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        XCTAssertEqual(flock(lock, LOCK_SH), 0)
        func temporaries() -> [String] { Scratch.snapshot(out).keys.filter { $0.contains(".tmp-1-") } }
        var children: [Child] = []
        for input in inputs {
            children.append(try Child("/usr/bin/unshare", ["--pid", "--fork", analyze, "--quiet", "--out", out, input]))
            let deadline = Child.monotonicSeconds() + 60
            while temporaries().count < 5 * children.count && Child.monotonicSeconds() < deadline { usleep(1_000) }
        }
        usleep(200_000)
        XCTAssertEqual(temporaries().count, 10, "\(temporaries().sorted())")
        close(lock)
        for child in children {
            let run = child.wait(timeout: 60)
            XCTAssertEqual(run.exitCode, 0, run.stderr)
        }
        let after = Scratch.snapshot(out)
        XCTAssertTrue(after == expected[0] || after == expected[1], "not one run's five files: \(after.keys.sorted())")
    }

    /// An `--out` with more new levels than the interrupt cleanup remembers:
    /// an interrupt removes the innermost ones it remembers and leaves only
    /// the outer levels beyond them, empty. Regression: it remembered the
    /// outermost, and `rmdir` could then remove none of them.
    func testASignalWithADeepNewOutputDirectoryRemovesTheInnermostLevels() throws {
        let scratch = Scratch()
        let input = rejectsOnlyInput(scratch, lines: 2_000)
        let levels = 20, remembered = 16
        for attempt in 0..<20 {
            let top = scratch.path + "/new\(attempt)"
            let out = top + (1..<levels).map { "/\($0)" }.joined()
            let run = try runSignalledAsItAppears(out: out, input: input)
            if Self.wroteEverything(run) { continue }
            XCTAssertEqual(run.exitCode, 143, run.stderr)
            // What is left: the outer 20 - 16 levels, each holding only the next.
            let left = (FileManager.default.subpaths(atPath: top) ?? []).sorted()
            XCTAssertEqual(left, (1..<(levels - remembered)).map { (1...$0).map(String.init).joined(separator: "/") })
            return
        }
        XCTFail("no run of 20 was interrupted before its renames")
    }

    func testFullDeviceFailsTheWriteAndLeavesOutputsUntouched() throws {
        let scratch = Scratch()
        // Outside `scratch`, whose removal must not run into a mounted file system.
        let device = NSTemporaryDirectory() + "analyze-small-device-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: device, withIntermediateDirectories: false)
        defer { rmdir(device) }
        // A 48 KiB tmpfs holds one run's five small files and four more temporaries,
        // not the large rejects.csv. Mounting needs CAP_SYS_ADMIN (root in a
        // container usually has it); without it the RLIMIT_FSIZE test above covers
        // the same code path.
        guard FileManager.default.isExecutableFile(atPath: "/bin/mount") else {
            throw XCTSkip("no /bin/mount: the full-device case is not run")
        }
        // Sized in 4 KiB pages: with 64 KiB pages the file system would be one.
        try XCTSkipUnless(sysconf(Int32(_SC_PAGESIZE)) == 4096, "pages of 4 KiB assumed: the full-device case is not run")
        let mounted = try Child.run("/bin/mount", ["-t", "tmpfs", "-o", "size=48k,mode=0755", "tmpfs", device])
        guard mounted.exitCode == 0 else {
            throw XCTSkip("cannot mount a tmpfs here (\(mounted.stderr.trimmingCharacters(in: .whitespacesAndNewlines))): the full-device case is not run")
        }
        defer { _ = try? Child.run("/bin/umount", ["-l", device]) }
        let out = device + "/out"
        var run = try Child.run(analyze, ["--quiet", "--out", out, example("basic/events.ndjson")])
        XCTAssertEqual(run.exitCode, 0, run.stderr)
        let before = Scratch.snapshot(out)
        XCTAssertEqual(Set(before.keys), Self.csvNames)
        run = try Child.run(analyze, ["--out", out, inputWithLargeRejects(scratch)])
        assertFailure(run, exit: 2, mentions: ["No space left on device"], out: out, before: before, "full tmpfs")

        // A read-only device: refused before any input is read.
        XCTAssertEqual(try Child.run("/bin/mount", ["-o", "remount,ro", device]).exitCode, 0)
        run = try Child.run(analyze, ["--out", out, example("basic/events.ndjson")])
        assertFailure(run, exit: 2, mentions: [out, "Read-only file system"], out: out, before: before, "read-only tmpfs")
    }
}
