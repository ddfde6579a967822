import Dispatch
import Foundation
import XCTest

@testable import AnalyzeKit

#if canImport(Glibc)
import Glibc
#endif

/// The renames that put a run's outputs in place (`OutputDirectory+Renames`):
/// undone together when one fails, and the directory lock that keeps two runs'
/// renames apart without ever waiting for the run's own caller.
final class OutputDirectoryTests: XCTestCase {
    private func text(_ path: String) -> String? {
        FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
    }

    /// `NAME.csv` for each name, written first as `.NAME.tmp`.
    private func outputs(_ names: [String], in path: String) -> [PendingOutput] {
        names.map { PendingOutput(temporary: path + "/.\($0).tmp", final: path + "/\($0).csv", slot: nil) }
    }

    /// Outputs `a` (an earlier one replaced), `b` (new) and `c`, whose
    /// temporary file is missing, so that its rename fails after the other two
    /// were done: both are undone, `a` is the earlier output again, `b` is
    /// absent again, and no temporary name is left.
    func testARenameThatFailsUndoesTheOnesBeforeIt() throws {
        let directory = TemporaryDirectory()
        let path = directory.path
        directory.write("a.csv", Array("old a\n".utf8))
        directory.write("c.csv", Array("old c\n".utf8))
        directory.write(".a.tmp", Array("new a\n".utf8))
        directory.write(".b.tmp", Array("new b\n".utf8))
        let pending = outputs(["a", "b", "c"], in: path)
        XCTAssertThrowsError(try OutputDirectory(path: path).putInPlace(pending)) { error in
            XCTAssertEqual((error as? AnalyzeError)?.exitCode, 2)
            XCTAssertTrue((error as? AnalyzeError)?.message.contains("c.csv") == true, "\(error)")
        }
        XCTAssertEqual(text(path + "/a.csv"), "old a\n")
        XCTAssertNil(text(path + "/b.csv"))
        XCTAssertEqual(text(path + "/c.csv"), "old c\n")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: path).sorted(), ["a.csv", "c.csv"])
    }

    /// All renames succeeding: the new files in place, and the earlier outputs
    /// (exchanged to the temporary names) removed.
    func testRenamesReplaceTheEarlierOutputsAndLeaveNoOtherName() throws {
        let directory = TemporaryDirectory()
        let path = directory.path
        directory.write("a.csv", Array("old a\n".utf8))
        directory.write(".a.tmp", Array("new a\n".utf8))
        directory.write(".b.tmp", Array("new b\n".utf8))
        let pending = outputs(["a", "b"], in: path)
        try OutputDirectory(path: path).putInPlace(pending)
        XCTAssertEqual(text(path + "/a.csv"), "new a\n")
        XCTAssertEqual(text(path + "/b.csv"), "new b\n")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: path).sorted(), ["a.csv", "b.csv"])
    }

    /// Another process's lock (here another open description of the
    /// directory, as another process would hold): the renames wait for it,
    /// for ``OutputDirectory/lockPatience`` at most, then go ahead unlocked.
    func testTheLockIsTakenWhenFreeAndGivenUpWhenHeldTooLong() throws {
        let directory = TemporaryDirectory()
        let output = OutputDirectory(path: directory.path, lockPatience: 0.05)
        let own = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        defer { close(own) }
        XCTAssertEqual(output.lockForRenames(own), .held, "a free directory is locked")
        XCTAssertEqual(flock(own, LOCK_UN), 0)

        let other = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        defer { close(other) }
        XCTAssertEqual(flock(other, LOCK_SH), 0)
        XCTAssertEqual(output.lockForRenames(own), .givenUp, "a lock held past the patience is given up")
        XCTAssertEqual(flock(other, LOCK_UN), 0)
        XCTAssertEqual(output.lockForRenames(own), .held)
    }

    /// `flock DIR analyze --out DIR`: the caller holds the lock through a
    /// descriptor it handed on across `exec`. The renames must not wait for
    /// it (they would wait for their own caller until the patience ran out;
    /// without the patience, for ever: a review found the run hung). An
    /// inherited descriptor that holds no lock is no reason not to wait.
    func testALockHeldThroughAnInheritedDescriptorIsNotWaitedFor() throws {
        let directory = TemporaryDirectory()
        let own = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        defer { close(own) }
        // Open across exec, as flock(1) leaves it for the command it runs.
        let inherited = open(directory.path, O_RDONLY | O_DIRECTORY)
        defer { close(inherited) }
        XCTAssertFalse(OutputDirectory.inheritsLock(on: own), "an inherited descriptor without a lock")
        let locker = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        XCTAssertEqual(flock(locker, LOCK_EX), 0)
        XCTAssertFalse(OutputDirectory.inheritsLock(on: own), "a lock held through this process's own descriptor")
        close(locker)
        XCTAssertEqual(flock(inherited, LOCK_EX), 0)
        XCTAssertTrue(OutputDirectory.inheritsLock(on: own))

        let output = OutputDirectory(path: directory.path, lockPatience: 3_600)
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var locked = OutputDirectory.RenameLock.held
        Thread {
            locked = output.lockForRenames(own)
            done.signal()
        }.start()
        // A hang detector, not a timing: waiting for the lock would take an hour.
        XCTAssertEqual(done.wait(timeout: .now() + 60), .success, "the renames waited for their own caller's lock")
        XCTAssertEqual(locked, .notTaken)
    }

    /// A lock released before the patience runs out is waited for and
    /// taken: the renames give up only after the whole patience.
    func testALockReleasedWithinThePatienceIsTaken() throws {
        let directory = TemporaryDirectory()
        let output = OutputDirectory(path: directory.path, lockPatience: 4)
        let own = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        defer { close(own) }
        let other = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        defer { close(other) }
        XCTAssertEqual(flock(other, LOCK_SH), 0)
        let released = DispatchSemaphore(value: 0)
        DispatchQueue.global().asyncAfter(deadline: .now() + 1.5) {
            flock(other, LOCK_UN)
            released.signal()
        }
        XCTAssertEqual(output.lockForRenames(own), .held, "a lock held for 1.5 s of a 4 s patience is waited for")
        released.wait()
        XCTAssertEqual(flock(own, LOCK_UN), 0)
    }

    /// An inherited descriptor holding a `flock` on another directory (on
    /// the same file system) is not the caller's lock on this one: a lock
    /// another process holds here is still waited for, then given up (found
    /// by mutation testing: with only the device compared, the other
    /// directory's lock was taken for this one's, and the renames went
    /// ahead at once without the lock).
    func testALockInheritedOnAnotherDirectoryIsNotTheCallersLock() throws {
        let directory = TemporaryDirectory(), elsewhere = TemporaryDirectory()
        let own = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        defer { close(own) }
        // Open across exec, as flock(1) leaves it, but on the other directory.
        let inherited = open(elsewhere.path, O_RDONLY | O_DIRECTORY)
        defer { close(inherited) }
        XCTAssertEqual(flock(inherited, LOCK_EX), 0)
        XCTAssertFalse(OutputDirectory.inheritsLock(on: own), "another directory's lock")
        let other = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        defer { close(other) }
        XCTAssertEqual(flock(other, LOCK_SH), 0)
        XCTAssertEqual(OutputDirectory(path: directory.path, lockPatience: 0.05).lockForRenames(own), .givenUp)
    }

    /// A new output directory whose name is NAME_MAX (255) bytes long is
    /// made and written; one byte longer is refused before any work (found
    /// by mutation testing: a bound one byte short passed every test).
    func testANewDirectoryNameOfNameMaxBytesIsMadeAndOneMoreIsRefused() throws {
        let directory = TemporaryDirectory()
        let longest = directory.path + "/" + String(repeating: "d", count: Int(NAME_MAX))
        try OutputDirectory(path: longest).checkWritable()
        try OutputDirectory(path: longest).write([CSVFile(name: "a.csv", header: ["h"], rows: { $0.row(["v"]) })])
        XCTAssertEqual(text(longest + "/a.csv"), "h\nv\n")
        let tooLong = directory.path + "/" + String(repeating: "d", count: Int(NAME_MAX) + 1)
        XCTAssertThrowsError(try OutputDirectory(path: tooLong).checkWritable()) { error in
            XCTAssertEqual((error as? AnalyzeError)?.exitCode, 2)
            XCTAssertTrue((error as? AnalyzeError)?.message.contains("File name too long") == true, "\(error)")
        }
        XCTAssertEqual(access(tooLong, F_OK), -1)
    }

    /// An earlier output that is a symbolic link is replaced by a regular
    /// file with a new output's mode: the link's own mode (0777) is not
    /// taken, and its target is left as it was (found by mutation testing:
    /// with the file type unchecked, the output became writable by all).
    func testAnEarlierOutputThatIsASymbolicLinkGivesItsModeToNothing() throws {
        let directory = TemporaryDirectory()
        let target = directory.write("target.csv", Array("target\n".utf8))
        XCTAssertEqual(chmod(target, 0o600), 0)
        let out = directory.path + "/out"
        XCTAssertEqual(mkdir(out, 0o755), 0)
        XCTAssertEqual(symlink(target, out + "/a.csv"), 0)
        try OutputDirectory(path: out).write([CSVFile(name: "a.csv", header: ["h"], rows: { $0.row(["v"]) })])
        var info = stat()
        XCTAssertEqual(lstat(out + "/a.csv", &info), 0)
        XCTAssertEqual(info.st_mode & S_IFMT, S_IFREG, "the link is replaced")
        XCTAssertEqual(info.st_mode & 0o7777, OutputDirectory.newFileMode())
        XCTAssertEqual(text(out + "/a.csv"), "h\nv\n")
        XCTAssertEqual(text(target), "target\n")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out), ["a.csv"])
    }
}
