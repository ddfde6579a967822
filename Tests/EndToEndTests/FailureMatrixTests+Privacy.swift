import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension FailureMatrixTests {
    // MARK: Privacy

    /// SPEC §4.5: raw line content is never written anywhere. A marker in every
    /// field the outputs do not carry, in accepted, duplicate and rejected lines
    /// of every reason, and in a damaged gzip, must appear in no output, message
    /// or CSV.
    func testNoLineContentInAnyOutputOrMessage() throws {
        let scratch = Scratch()
        let marker = "PII-7f3a-marker@example.com"
        let m = marker
        let lines = [
            #"{"event_id":"\#(m)1","event_type":"identify","timestamp":1,"device_id":"\#(m)","profile_id":"\#(m)p","customer_user_id":"\#(m)u","email":"\#(m)"}"#,
            #"{"event_id":"\#(m)1","event_type":"identify","timestamp":2,"device_id":"\#(m)","profile_id":"\#(m)p","customer_user_id":"\#(m)u"}"#,
            #"{"event_id":"\#(m)2","event_type":"\#(m)","timestamp":1,"name":"\#(m)"}"#,
            "\(m) not json",
            #"["\#(m)"]"#,
            #"{"event_type":"logout","note":"\#(m)"}"#,
            #"{"event_id":"\#(m)3","event_type":"logout","timestamp":1,"device_id":7,"profile_id":"\#(m)"}"#,
            #"{"event_id":"\#(m)4","event_type":"logout","timestamp":"\#(m)","device_id":"d","profile_id":"p"}"#,
            #"{"event_id":"\#(m)5","event_type":"onboarding_analytics","timestamp":1,"device_id":"d","profile_id":"p","action":"\#(m)"}"#,
            "{\"event_id\":\"x\",\"pad\":\"" + String(repeating: m, count: 100) + "\"}",
        ]
        let input = scratch.write("pii.ndjson", Data(lines.joined(separator: "\n").utf8))
        let damaged = scratch.write("pii.ndjson.gz", try Child.shell("gzip -c", stdin: Data(lines.joined(separator: "\n").utf8)).dropLast(3))
        let out = scratch.path + "/out"
        var runs = [try Child.run(analyze, ["--out", out, "--max-line-bytes", "1000", input])]
        runs.append(try Child.run(analyze, ["--out", out, "--max-reject-rate", "0.1", input]))
        runs.append(try Child.run(analyze, ["--out", out, damaged]))
        XCTAssertEqual(runs.map(\.exitCode), [0, 3, 2])
        for run in runs {
            XCTAssertFalse(run.stderr.contains("PII-7f3a") || run.stdout.contains("PII-7f3a"), run.stderr)
        }
        for (name, data) in Scratch.snapshot(out) {
            XCTAssertFalse(String(decoding: data, as: UTF8.self).contains("PII-7f3a"), "\(name) holds line content")
        }
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

    /// A new output's mode is 0644 less the umask, as `open` would make it:
    /// with umask 002 too (nothing writable by the group that 0644 does not give).
    func testNewOutputsAre0644LessTheUmask() throws {
        let scratch = Scratch()
        for (mask, expected) in [("002", mode_t(0o644)), ("000", 0o644), ("027", 0o640)] {
            let out = scratch.path + "/umask-" + mask
            let run = try Child.run("/bin/sh", ["-c", "umask \(mask); exec \"$0\" --quiet --out \"$1\" \"$2\"", analyze, out, sampleExport])
            XCTAssertEqual(run.exitCode, 0, run.stderr)
            var info = stat()
            for name in Self.csvNames {
                XCTAssertEqual(stat(out + "/" + name, &info), 0)
                XCTAssertEqual(info.st_mode & 0o7777, expected, "umask \(mask): \(name)")
            }
        }
    }

    /// Only the permission bits of an earlier output pass to its
    /// replacement, never set-user-ID, set-group-ID or sticky bits.
    func testReplacedOutputsGetNoSpecialBits() throws {
        let scratch = Scratch()
        let (out, _) = try establishedOutput(scratch)
        XCTAssertEqual(chmod(out + "/installs.csv", 0o4755), 0)
        XCTAssertEqual(chmod(out + "/quality.csv", 0o2640), 0)
        XCTAssertEqual(chmod(out + "/rejects.csv", 0o1644), 0)
        let run = try Child.run(analyze, ["--quiet", "--out", out, sampleExport])
        XCTAssertEqual(run.exitCode, 0, run.stderr)
        var info = stat()
        for (name, mode) in [("installs.csv", mode_t(0o755)), ("quality.csv", 0o640), ("rejects.csv", 0o644)] {
            XCTAssertEqual(stat(out + "/" + name, &info), 0)
            XCTAssertEqual(info.st_mode & 0o7777, mode, name)
        }
    }

    /// An earlier output whose group the user may not set loses only its
    /// group's bits: what it gave others stays. Found by mutation testing.
    func testAnOutputThatLosesItsGroupKeepsWhatItGaveOthers() throws {
        try XCTSkipUnless(nobodyCanRunAnalyze(), "needs root, setpriv, and uid 65534 free to run the build")
        let scratch = Scratch()
        let shared = scratch.path + "/shared"
        XCTAssertEqual(try Child.run(analyze, ["--quiet", "--out", shared, sampleExport]).exitCode, 0)
        XCTAssertEqual(chmod(shared, 0o777), 0)
        XCTAssertEqual(chown(shared + "/installs.csv", 65534, 0), 0)
        XCTAssertEqual(chmod(shared + "/installs.csv", 0o664), 0)
        let asNobody = try Child.run(Self.asNobody[0], Array(Self.asNobody.dropFirst()) + [
            analyze, "--quiet", "--out", shared, sampleExport,
        ])
        XCTAssertEqual(asNobody.exitCode, 0, asNobody.stderr)
        var info = stat()
        XCTAssertEqual(stat(shared + "/installs.csv", &info), 0)
        XCTAssertEqual(info.st_gid, 65534, "a group nobody may not set")
        XCTAssertEqual(info.st_mode & 0o7777, 0o604, "the group's bits went with the group, the others' stayed")
    }

    /// With two inputs read at once, the message counts one descriptor for
    /// each of them. Found by mutation testing.
    func testTooFewFreeFileDescriptorsForTwoInputsAtOnceSaysSo() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit"), "needs prlimit")
        // Workers never outnumber the usable cores: two inputs at once need two.
        try XCTSkipIf(ProcessInfo.processInfo.activeProcessorCount < 2, "needs two cores")
        let scratch = Scratch()
        let (out, before) = try establishedOutput(scratch)
        let run = try Child.run("/usr/bin/prlimit", ["--nofile=4", analyze, "--threads", "2", "--out", out, sampleExport, sampleExport])
        assertFailure(run, exit: 2, mentions: ["only 1 file descriptor", "this run needs 6 (4 for its thread pool and 1 for each of the 2 inputs it reads at once)"],
                      out: out, before: before, "two inputs")
    }

    /// Workers never outnumber the CPUs the affinity mask allows: under
    /// `taskset -c 0`, `--threads 2` reads one input at a time, which the
    /// descriptor check's message shows. Found by mutation testing.
    func testWorkersAreLimitedToTheCPUsOfTheAffinityMask() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit")
                          && FileManager.default.isExecutableFile(atPath: "/usr/bin/taskset"), "needs prlimit and taskset")
        let scratch = Scratch()
        let (out, before) = try establishedOutput(scratch)
        let run = try Child.run("/usr/bin/taskset", ["-c", "0", "/usr/bin/prlimit", "--nofile=4", analyze, "--threads", "2",
                                                     "--out", out, sampleExport, sampleExport])
        assertFailure(run, exit: 2, mentions: ["this run needs 5 (4 for its thread pool and 1 for the input it reads)"],
                      out: out, before: before, "one CPU allowed")
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
