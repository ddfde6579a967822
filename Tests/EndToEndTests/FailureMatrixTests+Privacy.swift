import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension FailureMatrixTests {
    // MARK: Privacy: no line content anywhere, and who may read the outputs

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

    /// 0644 less this process's umask (which the children inherit).
    private static func newFileMode() -> mode_t {
        let mask = umask(0o022)
        umask(mask)
        return 0o644 & ~mask
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
}
