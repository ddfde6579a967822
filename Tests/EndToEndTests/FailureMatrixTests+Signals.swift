import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension FailureMatrixTests {
    // MARK: Signals and crashes, at every phase of a run

    /// Runs over `text` on a standard input that stays open (so the run is
    /// certainly still reading) and sends `signal` once the signals are taken.
    private func runSignalledWhileReading(_ text: Data, into out: String, _ signal: Int32) throws -> ChildResult {
        let child = try Child(analyze, ["--out", out, "-"], stdin: .pipe)
        child.writeToStandardInput(text)
        child.waitUntilHandlingSignals()
        child.send(signal)
        return child.wait(keepingStandardInputOpen: true)
    }

    /// SIGXCPU too (a soft CPU time limit below the hard one: `ulimit -S -t`,
    /// `prlimit --cpu=S:H`), which ended the run as SIGKILL would (exit 152,
    /// no message, a write phase's temporary files left; found by a review).
    func testSignalWhileReadingRemovesNothingAndExitsWith128PlusTheSignal() throws {
        let scratch = Scratch()
        let (out, before) = try establishedOutput(scratch)
        let text = try Data(contentsOf: URL(fileURLWithPath: example("basic/events.ndjson")))
        for (signal, code) in [(SIGINT, Int32(130)), (SIGTERM, Int32(143)), (SIGHUP, Int32(129)), (SIGXCPU, Int32(152))] {
            let run = try runSignalledWhileReading(text, into: out, signal)
            XCTAssertEqual(run.exitCode, code, "signal \(signal): \(run.stderr)")
            XCTAssertEqual(run.stderr, signal == SIGXCPU ? "analyze: stopped at the CPU time limit; no output written\n"
                                                         : "analyze: interrupted; no output written\n")
            // Not a terminal: no blank line before the message in a log.
            XCTAssertFalse(run.stderr.hasPrefix("\n"), run.stderr.debugDescription)
            assertOutput(out, equals: before, "signal \(signal) while reading")
        }
    }

    /// A crash (a trap: most often a failed allocation under `ulimit -v`)
    /// says so in one line and ends the run as the signal does, outputs
    /// untouched. Regression: under an address-space limit a run ended with
    /// SIGILL and nothing on standard error (found by a review). Sent with
    /// kill(2) here; a real trap takes the same handler.
    func testACrashSaysSoAndEndsWithItsSignal() throws {
        // The sanitizers' own handlers take these signals and exit in their own way.
        try XCTSkipIf(Sanitizer.address || Sanitizer.thread, "a sanitizer's runtime handles these signals itself")
        let restore = childrenCrashQuietly()
        defer { restore() }
        let scratch = Scratch()
        let (out, before) = try establishedOutput(scratch)
        let text = try Data(contentsOf: URL(fileURLWithPath: example("basic/events.ndjson")))
        for (signal, name) in [(SIGILL, "SIGILL"), (SIGABRT, "SIGABRT"), (SIGSEGV, "SIGSEGV"), (SIGBUS, "SIGBUS")] {
            let run = try runSignalledWhileReading(text, into: out, signal)
            XCTAssertEqual(run.signal, signal, "\(name): \(run.stderr)")
            XCTAssertTrue(run.stderr.hasPrefix("analyze: stopped by \(name) (most often memory running out under a limit "
                                               + "such as ulimit -v or ulimit -s, else a bug); no output written\n"), run.stderr)
            assertOutput(out, equals: before, "\(name) while reading")
        }
        // While writing: the temporary files and the directories made go.
        // (Retried when faster than the signal, or caught during the renames,
        // where nothing is removed.)
        guard let (run, top) = try runSignalledWhileWriting(scratch, SIGSEGV, stopped: { $0.stderr.contains("; no output written\n") })
        else { return XCTFail("no run of 5 was stopped before its renames") }
        XCTAssertEqual(run.signal, SIGSEGV, run.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: top), "a directory made for --out was left")
    }

    /// A stack overflow on the main thread says so like any crash: the handler
    /// runs on an alternate stack. Regression: with none, the kernel ended the
    /// run with SIGSEGV and nothing on standard error (a release build at
    /// `ulimit -s 48`, a debug build at up to about 400 KiB; a smaller stack
    /// ends a run before the handler is installed).
    func testAStackOverflowSaysSoToo() throws {
        try XCTSkipIf(Sanitizer.address || Sanitizer.thread, "a sanitizer's runtime handles these signals itself")
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit"), "needs prlimit")
        let restore = childrenCrashQuietly()
        defer { restore() }
        let scratch = Scratch()
        let (out, before) = try establishedOutput(scratch)
        var overflowed = 0
        for kibibytes in [48, 128] {
            let run = try Child.run("/usr/bin/prlimit", ["--stack=\(kibibytes * 1024)", analyze, "--out", out, sampleExport], timeout: 60)
            guard run.signal != nil else {
                XCTAssertEqual(run.exitCode, 0, "\(kibibytes) KiB: \(run.stderr)")
                continue
            }
            overflowed += 1
            XCTAssertEqual(run.signal, SIGSEGV, "\(kibibytes) KiB: \(run.stderr)")
            XCTAssertEqual(run.stderr, "analyze: stopped by SIGSEGV (most often memory running out under a limit such as ulimit -v "
                           + "or ulimit -s, else a bug); no output written\n", "\(kibibytes) KiB")
            assertOutput(out, equals: before, "\(kibibytes) KiB")
        }
        try XCTSkipIf(overflowed == 0, "this build ran the sample in 48 KiB of stack")
    }

    /// A signal in the first moments after the signals are taken, while the
    /// run allocates its buffers, ends it with its exit code. Regression: the
    /// handler was Swift, and a debug build's first pass through it looked up
    /// a witness table with `malloc`; a signal that landed while the main
    /// thread held malloc's lock hung the run for good (about 1 run in 200
    /// signalled 2–12 ms after it started; this test, 300 runs signalled
    /// 0–1.5 ms after the handlers were in place, caught it in each of 4
    /// tries on that code). Signals are taken by a C thread of their own now.
    func testASignalRightAfterStartEndsTheRunAndNeverHangs() throws {
        let scratch = Scratch()
        let out = scratch.path + "/out"
        var generator = SystemRandomNumberGenerator()
        for attempt in 0..<300 {
            let (signal, code) = attempt % 2 == 0 ? (SIGINT, Int32(130)) : (SIGTERM, Int32(143))
            let child = try Child(analyze, ["--out", out, "-"], stdin: .pipe)
            child.waitUntilHandlingSignals()
            usleep(UInt32.random(in: 0..<1_500, using: &generator))
            child.send(signal)
            let run = child.wait(timeout: 60, keepingStandardInputOpen: true)
            XCTAssertEqual(run.exitCode, code, "attempt \(attempt), signal \(signal): \(run.stderr)")
            XCTAssertTrue(run.stderr.hasSuffix("analyze: interrupted; no output written\n"), run.stderr.debugDescription)
            if run.exitCode != code { break }  // one hang is enough (each costs the deadline)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
    }

    /// A signal ignored when the run starts stays ignored (`nohup`'s SIGHUP, a
    /// script's background job's SIGINT). Regression: the handlers replaced
    /// the ignored dispositions, and closing the terminal of a `nohup` run
    /// ended it with exit 129.
    func testSignalsIgnoredAtStartStayIgnored() throws {
        let scratch = Scratch()
        let out = scratch.path + "/out"
        let text = try Data(contentsOf: URL(fileURLWithPath: example("basic/events.ndjson")))
        for (signal, name) in [(SIGHUP, "HUP"), (SIGINT, "INT")] {
            // The shell ignores the signal and becomes analyze, which inherits that.
            let child = try Child("/bin/sh", ["-c", "trap '' \(name); exec \"$0\" \"$@\"", analyze, "--quiet", "--out", out, "-"],
                                  stdin: .pipe)
            child.writeToStandardInput(text)
            // Once the shell has become analyze with the signal ignored, and
            // analyze has blocked the others for the thread that takes them.
            XCTAssertTrue(Child.waitUntil(child.pid, named: "analyze", has: "SigIgn", for: [signal]), name)
            XCTAssertTrue(Child.waitUntil(child.pid, named: "analyze", has: "SigBlk", for: [SIGINT, SIGTERM, SIGHUP].filter { $0 != signal }), name)
            child.send(signal)
            usleep(100_000)
            let run = child.wait()
            XCTAssertNil(run.signal, "\(name): \(run.stderr)")
            XCTAssertEqual(run.exitCode, 0, "\(name) ignored: \(run.stderr)")
            XCTAssertEqual(Set(Scratch.snapshot(out).keys), Self.csvNames, name)
        }
    }

    func testSignalAtAnyMomentLeavesOldOrNewOutputsNeverAMix() throws {
        let scratch = Scratch()
        let (out, before) = try establishedOutput(scratch)
        let input = try bigInput()
        var complete: [String: Data]?
        func completeOutput() throws -> [String: Data] {
            if let complete { return complete }
            let reference = scratch.path + "/complete"
            XCTAssertEqual(try Child.run(analyze, ["--quiet", "--out", reference, input], timeout: 300).exitCode, 0)
            complete = Scratch.snapshot(reference)
            return complete!
        }
        // Delays from the moment the signals are taken (before that, the
        // signal's default action ends a process still starting up).
        for (index, delay) in [0, 0.2, 0.5, 1.0, 2.0, 3.5].enumerated() {
            let (signal, code) = index % 2 == 0 ? (SIGINT, Int32(130)) : (SIGTERM, Int32(143))
            let child = try Child(analyze, ["--quiet", "--out", out, input])
            child.waitUntilHandlingSignals()
            usleep(UInt32(delay * 1_000_000))
            child.send(signal)
            let run = child.wait(timeout: 300)
            XCTAssertNil(run.signal, "delay \(delay): died of signal \(run.signal ?? 0) instead of exiting")
            XCTAssertTrue(run.exitCode == code || run.exitCode == 0, "delay \(delay): exit \(run.exitCode ?? -1), \(run.stderr)")
            let after = Scratch.snapshot(out)
            XCTAssertEqual(after.keys.filter { $0.contains(".tmp-") }, [], "delay \(delay): temporary files left")
            if after != before {
                // The signal came after the last rename (or the run finished): all new.
                XCTAssertEqual(after, try completeOutput(), "delay \(delay): a mix of old and new outputs")
                restore(out, before)
            } else {
                XCTAssertEqual(run.exitCode, code, "delay \(delay): exit 0 but --out unchanged")
            }
        }
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

    /// On a terminal with no progress line (--quiet), an interrupt's message
    /// starts a line of its own, below the `^C` the terminal echoed. Found
    /// by mutation testing.
    func testAnInterruptOnATerminalStartsItsMessageOnANewLine() throws {
        let scratch = Scratch()
        let (out, before) = try establishedOutput(scratch)
        let text = try Data(contentsOf: URL(fileURLWithPath: example("basic/events.ndjson")))
        let child = try Child(analyze, ["--quiet", "--out", out, "-"], stdin: .pipe, stderr: .terminal(columns: 80))
        child.writeToStandardInput(text)
        child.waitUntilHandlingSignals()
        child.send(SIGINT)
        let run = child.wait(keepingStandardInputOpen: true)
        XCTAssertEqual(run.exitCode, 130, run.stderr)
        XCTAssertTrue(run.stderr.hasPrefix("\r\nanalyze: interrupted; no output written"), run.stderr.debugDescription)
        assertOutput(out, equals: before, "interrupted on a terminal")
    }

    /// An interrupt while the progress line is drawn erases the line and
    /// writes its message in its place ("\r ESC[K"), not on a line below it.
    /// Regression (mutation testing): the progress line's flag never reaching
    /// the cleanup (its message then started with a line feed) passed every
    /// test.
    func testAnInterruptOverTheProgressLineErasesItFirst() throws {
        let scratch = Scratch()
        let (out, before) = try establishedOutput(scratch)
        let text = try Data(contentsOf: URL(fileURLWithPath: example("basic/events.ndjson")))
        let child = try Child(analyze, ["--out", out, "-"], stdin: .pipe, stderr: .terminal(columns: 80))
        child.writeToStandardInput(text)
        // Standard input stays open until a progress line was drawn (or 60 s, a failure).
        XCTAssertTrue(child.waitForTerminal(toShow: " decoded", timeout: 60))
        child.send(SIGINT)
        let run = child.wait(keepingStandardInputOpen: true)
        XCTAssertEqual(run.exitCode, 130, run.stderr)
        XCTAssertTrue(run.stderr.contains("\r\u{1B}[Kanalyze: interrupted; no output written"), run.stderr.debugDescription)
        XCTAssertFalse(run.stderr.contains("\nanalyze: interrupted"), run.stderr.debugDescription)
        assertOutput(out, equals: before, "interrupted over the progress line")
    }

    /// A crash once every output is in place says so, and removes nothing.
    /// Standard error is a FIFO filled to the brim beforehand, so the run
    /// waits in writing its summary, after its renames; the crash signal is
    /// sent to that thread (`tgkill`), whose handler then says why it stops.
    /// Regression (mutation testing): outputs never marked written (the
    /// message then said "no output written" over the new outputs) passed
    /// every test.
    func testACrashAfterTheRenamesSaysTheOutputsWereWritten() throws {
        try XCTSkipIf(Sanitizer.address || Sanitizer.thread, "a sanitizer's runtime handles these signals itself")
        let restore = childrenCrashQuietly()
        defer { restore() }
        let scratch = Scratch()
        let out = scratch.path + "/out"
        let fifo = scratch.path + "/stderr"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let reader = open(fifo, O_RDWR | O_NONBLOCK)
        XCTAssertGreaterThanOrEqual(reader, 0)
        defer { close(reader) }
        let page = [UInt8](repeating: UInt8(ascii: "."), count: 4096)
        var filler = 0
        for size in [page.count, 1] {
            while true {
                let n = write(reader, page, size)
                if n <= 0 { break }
                filler += n
            }
        }
        let child = try Child(analyze, ["--out", out, example("basic/events.ndjson")], stderr: .path(fifo))
        // Until its one write to standard error, the summary, waits (or 60 s, a failure below).
        // (Where /proc hides wait channels the 60 s pass, and the run has waited long since.)
        let deadline = Child.monotonicSeconds() + 60
        while !Child.waitChannels(of: child.pid).contains("pipe_write") && Child.monotonicSeconds() < deadline { usleep(2000) }
        XCTAssertEqual(Set(Scratch.snapshot(out).keys), Self.csvNames)
        typealias ThreadKill = @convention(c) (pid_t, pid_t, Int32) -> Int32
        let tgkill = unsafeBitCast(dlsym(UnsafeMutableRawPointer(bitPattern: 0), "tgkill"), to: ThreadKill.self)
        XCTAssertEqual(tgkill(child.pid, child.pid, SIGSEGV), 0)
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        func said() -> String { String(decoding: bytes.dropFirst(filler), as: UTF8.self) }
        while !said().contains("analyze: stopped by") || !said().hasSuffix("\n"), Child.monotonicSeconds() < deadline {
            var ready = pollfd(fd: reader, events: Int16(POLLIN), revents: 0)
            if poll(&ready, 1, 50) > 0 {
                let n = read(reader, &buffer, buffer.count)
                if n > 0 { bytes += buffer[..<n] }
            }
        }
        let run = child.wait()
        XCTAssertEqual(run.signal, SIGSEGV, said())
        XCTAssertTrue(said().hasSuffix("analyze: stopped by SIGSEGV (most often memory running out under a limit such as "
                                       + "ulimit -v or ulimit -s, else a bug) after all outputs were written\n"), said().debugDescription)
        XCTAssertEqual(Set(Scratch.snapshot(out).keys), Self.csvNames)
    }
}
