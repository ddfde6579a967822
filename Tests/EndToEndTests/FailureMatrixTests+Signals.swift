import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension FailureMatrixTests {
    // MARK: Signals

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

    /// Runs over `text` on a standard input that stays open (so the run is
    /// certainly still reading) and sends `signal` once the signals are taken.
    private func runSignalledWhileReading(_ text: Data, into out: String, _ signal: Int32) throws -> ChildResult {
        let child = try Child(analyze, ["--out", out, "-"], stdin: .pipe)
        child.writeToStandardInput(text)
        child.waitUntilHandlingSignals()
        child.send(signal)
        return child.wait(keepingStandardInputOpen: true)
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

    /// Two runs into one `--out` at once could interleave their renames and
    /// leave a mix of both runs' files (8 pairs in 300, started together on a
    /// small input). A run renames only while it holds an exclusive `flock`
    /// on the directory. Checked here by holding a shared one, as a reader of
    /// the outputs may: the run writes its temporary files and waits; a
    /// signal then removes them; released, the lock lets the run finish.
    func testRenamesWaitForALockOnTheOutputDirectory() throws {
        let scratch = Scratch()
        let (out, before) = try establishedOutput(scratch)
        let reference = scratch.path + "/reference"
        XCTAssertEqual(try Child.run(analyze, ["--quiet", "--out", reference, sampleExport]).exitCode, 0)
        let lock = open(out, O_RDONLY | O_DIRECTORY | O_CLOEXEC)  // not inherited: the runs must not hold it too
        XCTAssertGreaterThanOrEqual(lock, 0)
        XCTAssertEqual(flock(lock, LOCK_SH), 0)
        func temporaries() -> [String] { Scratch.snapshot(out).keys.filter { $0.contains(".tmp-") } }
        /// Starts a run and returns once its five temporary files exist and it
        /// has had time to rename them, were it not waiting.
        func startWaitingRun() throws -> Child {
            let child = try Child(analyze, ["--quiet", "--out", out, sampleExport])
            let deadline = Child.monotonicSeconds() + 60
            while temporaries().count < 5 && Child.monotonicSeconds() < deadline { usleep(1_000) }
            XCTAssertEqual(temporaries().count, 5, "the run did not write its temporary files")
            usleep(300_000)
            XCTAssertEqual(temporaries().count, 5, "the run renamed or removed its files under the lock")
            XCTAssertEqual(Scratch.snapshot(out).filter { !$0.key.contains(".tmp-") }, before,
                           "the earlier outputs changed while the lock was held")
            return child
        }

        let signalled = try startWaitingRun()
        signalled.send(SIGTERM)
        let interrupted = signalled.wait(timeout: 60)
        XCTAssertEqual(interrupted.exitCode, 143, interrupted.stderr)
        assertOutput(out, equals: before, "a run signalled while it waits for the lock")

        let waiting = try startWaitingRun()
        close(lock)
        let run = waiting.wait(timeout: 60)
        XCTAssertEqual(run.exitCode, 0, run.stderr)
        XCTAssertEqual(Scratch.snapshot(out), Scratch.snapshot(reference))

        // Held past the run's patience (10 seconds): it goes ahead without the
        // lock, and says so, under --quiet too. Regression: silently (found by
        // a review of the README).
        let held = open(out, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        defer { close(held) }
        XCTAssertEqual(flock(held, LOCK_SH), 0)
        let impatient = try Child.run(analyze, ["--quiet", "--out", out, example("basic/events.ndjson")], timeout: 120)
        XCTAssertEqual(impatient.exitCode, 0, impatient.stderr)
        XCTAssertEqual(impatient.stderr, "analyze: warning: another process held a lock on '\(out)' for more than 10 seconds "
                       + "(a reader's flock -s?); the outputs were replaced without it\n")
        XCTAssertNotEqual(Scratch.snapshot(out), Scratch.snapshot(reference), "the outputs were not replaced")
    }

    /// A rename that fails after others have succeeded is undone with them:
    /// here a file bind-mounted over an output's name (`EBUSY`), as a
    /// container may have one. Found by a review: the outputs renamed before
    /// it were new, the others old, and the run exited 2. Each name in turn.
    func testARenameThatFailsLeavesEveryOutputAsItWas() throws {
        guard (try? Child.run("/usr/bin/unshare", ["--mount", "/bin/true"]).exitCode) == 0 else {
            throw XCTSkip("no mount namespaces here (unshare --mount needs CAP_SYS_ADMIN)")
        }
        let scratch = Scratch()
        let (out, before) = try establishedOutput(scratch)
        let host = scratch.write("host.csv", Data("host\n".utf8))
        // The mount lives in a namespace of the run's own: nothing is left
        // mounted whatever becomes of the test.
        let script = #"mount --bind "$1" "$2" && exec "$0" --quiet --out "$3" "$4""#
        for name in Self.csvNames.sorted() {
            let target = out + "/" + name
            let run = try Child.run("/usr/bin/unshare", ["--mount", "/bin/sh", "-c", script, analyze, host, target, out, sampleExport])
            assertFailure(run, exit: 2, mentions: [target, "busy"], out: out, before: before, name)
        }
    }

    /// An output replaced keeps its permission bits and (where the user may
    /// set it) its group; a new one gets 0644 less the umask. Found by a
    /// review: every run undid an operator's `chmod 640`.
    func testReplacedOutputsKeepTheirPermissionsAndGroup() throws {
        let scratch = Scratch()
        let (out, _) = try establishedOutput(scratch)
        let modes: [String: mode_t] = [
            "installs.csv": 0o640, "profile_switches.csv": 0o600, "quiz_answers.csv": 0o604,
            "quality.csv": 0o644, "rejects.csv": 0o400,
        ]
        // Root may give any group (where the group is mapped: not in a user
        // namespace of one id); another user one of its own.
        let group = geteuid() == 0 && chown(out + "/installs.csv", uid_t.max, 4242) == 0 ? gid_t(4242) : getegid()
        for (name, mode) in modes {
            XCTAssertEqual(chown(out + "/" + name, uid_t.max, group), 0)
            XCTAssertEqual(chmod(out + "/" + name, mode), 0)
        }
        let run = try Child.run(analyze, ["--quiet", "--out", out, sampleExport])
        XCTAssertEqual(run.exitCode, 0, run.stderr)
        var info = stat()
        for (name, mode) in modes {
            XCTAssertEqual(stat(out + "/" + name, &info), 0)
            XCTAssertEqual(info.st_mode & 0o7777, mode, name)
            XCTAssertEqual(info.st_gid, group, name)
            XCTAssertGreaterThan(info.st_size, 0, "\(name) was not replaced")
        }
        // An earlier output of another user's gives nothing (a planted 0666
        // must not make this run's output writable by all); one whose group
        // the user may not set loses its group's bits. Both as root, the
        // second run as `nobody`.
        if nobodyCanRunAnalyze() {
            let shared = scratch.path + "/shared"
            XCTAssertEqual(try Child.run(analyze, ["--quiet", "--out", shared, sampleExport]).exitCode, 0)
            XCTAssertEqual(chmod(shared, 0o777), 0)
            XCTAssertEqual(chown(shared + "/installs.csv", 65534, 0), 0)
            XCTAssertEqual(chmod(shared + "/installs.csv", 0o666), 0)
            XCTAssertEqual(try Child.run(analyze, ["--quiet", "--out", shared, sampleExport]).exitCode, 0)
            XCTAssertEqual(stat(shared + "/installs.csv", &info), 0)
            XCTAssertEqual(info.st_mode & 0o7777, Self.newFileMode(), "mode from another user's file")
            XCTAssertEqual(info.st_uid, 0)

            XCTAssertEqual(chown(shared + "/installs.csv", 65534, 0), 0)
            XCTAssertEqual(chmod(shared + "/installs.csv", 0o660), 0)
            let asNobody = try Child.run(Self.asNobody[0], Array(Self.asNobody.dropFirst()) + [
                analyze, "--quiet", "--out", shared, sampleExport,
            ])
            XCTAssertEqual(asNobody.exitCode, 0, asNobody.stderr)
            XCTAssertEqual(stat(shared + "/installs.csv", &info), 0)
            XCTAssertEqual(info.st_uid, 65534)
            XCTAssertEqual(info.st_gid, 65534, "a group nobody may not set")
            XCTAssertEqual(info.st_mode & 0o7777, 0o600, "the group's bits went with the group")
        }
        let fresh = scratch.path + "/fresh"
        XCTAssertEqual(try Child.run(analyze, ["--quiet", "--out", fresh, sampleExport]).exitCode, 0)
        for name in Self.csvNames {
            XCTAssertEqual(stat(fresh + "/" + name, &info), 0)
            XCTAssertEqual(info.st_mode & 0o7777, Self.newFileMode(), name)
        }
    }

    /// 0644 less this process's umask (which the children inherit).
    private static func newFileMode() -> mode_t {
        let mask = umask(0o022)
        umask(mask)
        return 0o644 & ~mask
    }

    /// `flock DIR analyze --out DIR`, the cron idiom against overlapping
    /// runs, with the run's own lock on the same directory. A review found it
    /// hung for ever: the renames waited for the lock their caller held.
    func testARunUnderFlockOnItsOwnOutputDirectoryFinishes() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/flock") else {
            throw XCTSkip("no flock(1) here")
        }
        let scratch = Scratch()
        let (out, _) = try establishedOutput(scratch)
        let reference = scratch.path + "/reference"
        XCTAssertEqual(try Child.run(analyze, ["--quiet", "--out", reference, sampleExport]).exitCode, 0)
        let run = try Child("/usr/bin/flock", [out, analyze, "--quiet", "--out", out, sampleExport]).wait(timeout: 120)
        XCTAssertEqual(run.exitCode, 0, run.stderr)
        XCTAssertEqual(Scratch.snapshot(out), Scratch.snapshot(reference))
    }
}
