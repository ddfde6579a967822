import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The built binary under every failure we can provoke (SPEC §1, §5, §6): missing and
/// unreadable inputs, damaged gzip, bad `--out`, a full device, closed or broken
/// standard streams, SIGINT / SIGTERM, every usage error, deep nesting and a 200 MB
/// line. Each case checks the exit code, that standard error names the cause
/// (`analyze: ` first), and the state of `--out` afterwards: byte-identical to what
/// an earlier successful run left, with no `.tmp-` file behind.
///
/// Processes are started with `posix_spawn` (``Child``) rather than `Process`, for
/// what `Process` cannot do: close a standard stream, hand over a broken pipe, send
/// a signal to a known pid, and sample the child's peak memory in /proc.
///
/// The cases are in `FailureMatrixTests+KIND.swift`, one file per kind of failure;
/// this file holds what they share.
final class FailureMatrixTests: XCTestCase {
    static let csvNames: Set<String> = [
        "installs.csv", "profile_switches.csv", "quiz_answers.csv", "quality.csv", "rejects.csv",
    ]

    override class func setUp() {
        super.setUp()
        // Writing to a pipe whose reader died must not kill the test process.
        signal(SIGPIPE, SIG_IGN)
    }

    override class func tearDown() {
        if let big = bigInputPath { unlink(big) }
        super.tearDown()
    }

    var analyze: String { AnalyzeBinary.url.path }

    func example(_ path: String) -> String {
        AnalyzeBinary.repositoryRoot.appendingPathComponent("tools/reference/examples/" + path).path
    }

    var sampleExport: String {
        AnalyzeBinary.repositoryRoot.appendingPathComponent("sample-data/events.ndjson.gz").path
    }

    /// A successful run into `scratch/out` on a small input; returns `--out` and its files.
    func establishedOutput(_ scratch: Scratch, name: String = "out") throws -> (out: String, before: [String: Data]) {
        let out = scratch.path + "/" + name
        let run = try Child.run(analyze, ["--quiet", "--out", out, example("basic/events.ndjson")])
        XCTAssertEqual(run.exitCode, 0, run.stderr)
        let before = Scratch.snapshot(out)
        XCTAssertEqual(Set(before.keys), Self.csvNames)
        return (out, before)
    }

    /// A failed run: its exit code, a message naming the cause, nothing on standard
    /// output, and `--out` exactly as before (or still absent).
    func assertFailure(
        _ run: ChildResult, exit code: Int32, mentions: [String], out: String, before: [String: Data]?,
        _ context: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertNil(run.signal, "\(context): killed by signal \(run.signal ?? 0); stderr: \(run.stderr)", file: file, line: line)
        XCTAssertEqual(run.exitCode, code, "\(context): stderr: \(run.stderr)", file: file, line: line)
        XCTAssertTrue(run.stderr.hasPrefix("analyze: "), "\(context): stderr: \(run.stderr)", file: file, line: line)
        for mention in mentions {
            XCTAssertTrue(run.stderr.contains(mention), "\(context): stderr does not name '\(mention)': \(run.stderr)", file: file, line: line)
        }
        XCTAssertEqual(run.stdout, "", "\(context): standard output", file: file, line: line)
        assertOutput(out, equals: before, context, file: file, line: line)
    }

    func assertOutput(
        _ out: String, equals before: [String: Data]?, _ context: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        guard let before else {
            XCTAssertFalse(FileManager.default.fileExists(atPath: out), "\(context): created \(out)", file: file, line: line)
            return
        }
        let after = Scratch.snapshot(out)
        let leftovers = after.keys.filter { $0.contains(".tmp-") }
        XCTAssertEqual(leftovers, [], "\(context): temporary files left in --out", file: file, line: line)
        XCTAssertEqual(Set(after.keys), Set(before.keys), "\(context): --out holds other files", file: file, line: line)
        for (name, data) in before where after[name] != data {
            XCTFail("\(context): \(name) changed", file: file, line: line)
        }
    }

    /// Puts `--out` back as it was, so one failed case does not fail the next ones too.
    func restore(_ out: String, _ before: [String: Data]) {
        for (name, _) in Scratch.snapshot(out) where before[name] == nil { unlink(out + "/" + name) }
        for (name, data) in before { _ = FileManager.default.createFile(atPath: out + "/" + name, contents: data) }
    }

    /// Generated once for the signal tests: 300 000 events, gzip (about 19 MB).
    nonisolated(unsafe) private static var bigInputPath: String?

    func bigInput() throws -> String {
        if let path = Self.bigInputPath { return path }
        let path = NSTemporaryDirectory() + "analyze-failure-matrix-\(getpid()).ndjson.gz"
        let generator = AnalyzeBinary.productsDirectory.appendingPathComponent("generate-events").path
        let run = try Child.run(generator, ["--events", "300000", "--seed", "77", "--noise", "0.01", "--gzip", "--level", "1", "--out", path], timeout: 300)
        XCTAssertEqual(run.exitCode, 0, run.stderr)
        Self.bigInputPath = path
        return path
    }

    /// Whether, run as root, this test can run the build as `nobody` (uid
    /// and gid 65534) under the `prlimit` options `limits`: not where the
    /// checkout is in a directory nobody may enter (under /root, or made
    /// with umask 077), where 65534 is not mapped (a user namespace of one
    /// id), or where processes of nobody's already fill a limit on tasks.
    func nobodyCanRunAnalyze(limits: [String] = []) -> Bool {
        let prlimit = "/usr/bin/prlimit"
        guard geteuid() == 0, FileManager.default.isExecutableFile(atPath: Self.asNobody[0]),
              limits.isEmpty || FileManager.default.isExecutableFile(atPath: prlimit) else { return false }
        let command = (limits.isEmpty ? [] : [prlimit] + limits) + Self.asNobody
        let version = try? Child.run(command[0], Array(command.dropFirst()) + [analyze, "--version"])
        let readable = try? Child.run(Self.asNobody[0], Array(Self.asNobody.dropFirst()) + ["/usr/bin/test", "-r", sampleExport])
        return version?.exitCode == 0 && readable?.exitCode == 0
    }

    /// `setpriv` with the arguments that run a command as `nobody` (uid and
    /// gid 65534, no supplementary groups).
    static let asNobody = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]

    /// Sets this process's limits so that children that crash leave no core
    /// dump and run no Swift backtracer (which a debug build has: while it
    /// reports, the other threads go on, and a run could finish before the
    /// signal ends it); returns what puts them back.
    func childrenCrashQuietly() -> () -> Void {
        var noCores = rlimit(rlim_cur: 0, rlim_max: 0)
        var earlier = rlimit()
        XCTAssertEqual(getrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &earlier), 0)
        noCores.rlim_max = earlier.rlim_max
        XCTAssertEqual(setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &noCores), 0)
        let backtrace = getenv("SWIFT_BACKTRACE").map { String(cString: $0) }
        setenv("SWIFT_BACKTRACE", "enable=no", 1)
        return {
            setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &earlier)
            if let backtrace { setenv("SWIFT_BACKTRACE", backtrace, 1) } else { unsetenv("SWIFT_BACKTRACE") }
        }
    }

    /// Runs over two million rejects (a write phase long enough to be caught)
    /// into a new `--out` two levels deep and sends `signal` as soon as that
    /// directory appears. Returns the first of five runs that `stopped` says
    /// the signal ended before its renames (others were faster than it), with
    /// the top directory made for it; nil when none was.
    func runSignalledWhileWriting(
        _ scratch: Scratch, _ signal: Int32, stopped: (ChildResult) -> Bool
    ) throws -> (ChildResult, String)? {
        let input = rejectsOnlyInput(scratch, lines: 2_000_000)
        for attempt in 0..<5 {
            let top = scratch.path + "/new\(signal)-\(attempt)"
            let out = top + "/deeper/out"
            let child = try Child(analyze, ["--quiet", "--max-reject-rows", "100000000", "--out", out, input])
            let deadline = Child.monotonicSeconds() + 60
            while !FileManager.default.fileExists(atPath: out) && Child.monotonicSeconds() < deadline { usleep(500) }
            child.send(signal)
            let run = child.wait(timeout: 120)
            if stopped(run) { return (run, top) }
            // Faster than the signal: every output is in place; try again.
            if Self.wroteEverything(run) { XCTAssertEqual(Set(Scratch.snapshot(out).keys), Self.csvNames) }
        }
        return nil
    }

    /// An input of `count` lines that are not JSON: as many rejects to write.
    func rejectsOnlyInput(_ scratch: Scratch, lines count: Int) -> String {
        var text = ""
        text.reserveCapacity(count * 20)
        for line in 0..<count { text += "not json \(line)\n" }
        return scratch.write("rejects.ndjson", Data(text.utf8))
    }

    /// Whether a signalled run had finished its renames when the signal landed.
    static func wroteEverything(_ run: ChildResult) -> Bool {
        run.exitCode == 0 || run.stderr.contains("interrupted after all outputs were written")
    }
}
