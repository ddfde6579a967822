import CSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One output written in full under its temporary name, waiting for its rename.
struct PendingOutput {
    let temporary: String
    let final: String
    /// Its entry in the interrupt cleanup's table.
    let slot: Int?
}

extension OutputDirectory {
    /// Renames every file of `pending` into place, all of them or none, and
    /// removes the temporary names; throws (with the earlier outputs as they
    /// were) when one cannot be renamed.
    ///
    /// Each temporary file is *exchanged* with the output it replaces
    /// (`renameat2` with `RENAME_EXCHANGE`), so the earlier output stays under
    /// the temporary name until every rename has succeeded, and one that fails
    /// (a file bind-mounted over an output name: `EBUSY`; an output owned by
    /// another user in a sticky directory: `EPERM`; an immutable file) is
    /// undone by exchanging the earlier ones back. An output not there yet is
    /// renamed plainly. On a file system that cannot exchange (`EINVAL`), the
    /// renames are plain ones, which a later failure cannot undo.
    ///
    /// The renames hold an exclusive `flock` on the directory
    /// (``lockForRenames(_:)``), so that two runs into one directory never
    /// interleave theirs, and the directory is `fsync`ed after them; an
    /// interrupt waits until both are done. Returns how the lock stood.
    @discardableResult
    func putInPlace(_ pending: [PendingOutput]) throws(AnalyzeError) -> RenameLock {
        let directory = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        defer { if directory >= 0 { close(directory) } }
        let lock = directory >= 0 ? lockForRenames(directory) : .notTaken
        try InterruptCleanup.withInterruptsHeld { () throws(AnalyzeError) in
            InterruptCleanup.setRenaming(true)
            defer { InterruptCleanup.setRenaming(false) }  // after the one below
            /// Temporary names that hold an earlier output which could not be
            /// put back: kept, not removed with the others.
            var stranded: [String] = []
            defer {
                // The temporary names now hold the earlier outputs (after
                // exchanges) or this run's files (after a failure), or nothing.
                for file in pending {
                    // A stranded name holds the only copy of an earlier output:
                    // kept, and forgotten by the cleanup, which would remove it.
                    if !stranded.contains(file.temporary) { unlink(file.temporary) }
                    InterruptCleanup.unregister(file.slot)
                }
                if lock == .held { flock(directory, LOCK_UN) }
                // The renames to disk too, so that a run that exited 0 keeps
                // its outputs through a power cut. Not the run's failure if
                // this fails: the new files are in place.
                if directory >= 0 { fsync(directory) }
            }
            enum Placed { case exchanged, created, replaced }
            var placed: [Placed] = []
            for file in pending {
                if analyze_rename_exchange(file.temporary, file.final) == 0 {
                    placed.append(.exchanged)
                    continue
                }
                let exchangeError = errno
                if exchangeError == ENOENT || exchangeError == EINVAL || exchangeError == ENOSYS,
                    rename(file.temporary, file.final) == 0
                {
                    placed.append(exchangeError == ENOENT ? .created : .replaced)
                    continue
                }
                var message = "cannot write '\(file.final)': \(String(cString: strerror(errno)))"
                // Undone, last first: the earlier outputs back under their
                // names, this run's files back under the temporary ones.
                for (file, how) in zip(pending, placed).reversed() {
                    switch how {
                    case .exchanged:
                        if analyze_rename_exchange(file.temporary, file.final) != 0 {
                            stranded.append(file.temporary)
                            message += "; the earlier '\(file.final)' could not be put back and is kept as '\(file.temporary)'"
                        }
                    case .created:
                        if rename(file.final, file.temporary) != 0 {
                            message += "; '\(file.final)' of this run could not be taken back"
                        }
                    case .replaced:
                        break  // the earlier output is gone
                    }
                }
                throw .input(message)
            }
            InterruptCleanup.markOutputsWritten()
        }
        return lock
    }

    /// How the renames stand with the directory's lock.
    enum RenameLock: Equatable {
        /// Held by this run.
        case held
        /// Not taken: the directory cannot be locked, or this run's caller
        /// holds the lock for it.
        case notTaken
        /// Held by another process for longer than ``lockPatience``: not
        /// taken, and the run says so in a warning.
        case givenUp
    }

    /// Takes an exclusive `flock` on `directory` (the output directory, open)
    /// for the renames. Best effort, and never a hang:
    /// - a file system without `flock`: no lock;
    /// - locked already through a descriptor this process inherited across
    ///   `exec` (`flock DIR analyze --out DIR …`, the cron idiom against
    ///   overlapping runs): the caller's lock stands for the run's own, which
    ///   would wait for its own caller;
    /// - locked by another process: tried again for up to ``lockPatience``
    ///   seconds (another run holds it for a few milliseconds; a reader may
    ///   hold a shared one while it reads), then given up.
    func lockForRenames(_ directory: Int32) -> RenameLock {
        var waited = 0.0
        var pause: UInt32 = 1_000  // microseconds, doubled up to 50 ms
        while flock(directory, LOCK_EX | LOCK_NB) != 0 {
            let reason = errno
            if reason == EINTR { continue }
            guard reason == EWOULDBLOCK, waited > 0 || !Self.inheritsLock(on: directory) else { return .notTaken }
            guard waited < lockPatience else { return .givenUp }
            usleep(pause)
            waited += Double(pause) / 1e6
            pause = min(pause * 2, 50_000)
        }
        return .held
    }

    /// Whether a descriptor other than `fd`, open across `exec` (no
    /// `FD_CLOEXEC`: this process's own are all opened with it), refers to
    /// the same file as `fd` and holds a `flock` on it (a `lock:` line of
    /// its `/proc/self/fdinfo`). False where `/proc` cannot be read.
    static func inheritsLock(on fd: Int32) -> Bool {
        var target = stat()
        guard fstat(fd, &target) == 0, let handle = opendir("/proc/self/fd") else { return false }
        defer { closedir(handle) }
        let listing = dirfd(handle)
        var info = stat()
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            guard let other = Int32(name), other != fd, other != listing else { continue }
            let flags = fcntl(other, F_GETFD)
            guard flags >= 0, flags & FD_CLOEXEC == 0, fstat(other, &info) == 0,
                info.st_dev == target.st_dev, info.st_ino == target.st_ino
            else { continue }
            if Self.holdsFlock(descriptor: other) { return true }
        }
        return false
    }

    /// Whether `/proc/self/fdinfo/N` lists a `flock` held through descriptor N.
    private static func holdsFlock(descriptor: Int32) -> Bool {
        // "lock:\t1: FLOCK  ADVISORY  WRITE 1234 00:2d:56 0 EOF"
        let text = UsableCores.readSmallFile("/proc/self/fdinfo/\(descriptor)") ?? ""
        return text.split(separator: "\n").contains { $0.hasPrefix("lock:") && $0.contains("FLOCK") }
    }
}
