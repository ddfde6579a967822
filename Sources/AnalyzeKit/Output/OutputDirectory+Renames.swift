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
    /// (``lockForRenames()``), so that two runs into one directory never
    /// interleave theirs; an interrupt waits until they are done.
    func putInPlace(_ pending: [PendingOutput]) throws(AnalyzeError) {
        let lock = lockForRenames()
        defer {
            if lock >= 0 {
                flock(lock, LOCK_UN)
                // The renames to disk too, so that a run that exited 0 keeps
                // its outputs through a power cut. Not the run's failure if
                // this fails: the new files are in place.
                fsync(lock)
                close(lock)
            }
        }
        try InterruptCleanup.withInterruptsHeld { () throws(AnalyzeError) in
            defer {
                // The temporary names now hold the earlier outputs (after
                // exchanges) or this run's files (after a failure), or nothing.
                for file in pending {
                    unlink(file.temporary)
                    InterruptCleanup.unregister(file.slot)
                }
            }
            enum Placed { case exchanged, created, replaced }
            var placed: [Placed] = []
            for file in pending {
                if analyze_rename_exchange(file.temporary, file.final) == 0 {
                    placed.append(.exchanged)
                    continue
                }
                let exchangeError = errno
                if (exchangeError == ENOENT || exchangeError == EINVAL || exchangeError == ENOSYS),
                    rename(file.temporary, file.final) == 0
                {
                    placed.append(exchangeError == ENOENT ? .created : .replaced)
                    continue
                }
                let reason = String(cString: strerror(errno))
                // Undone, last first: the earlier outputs back under their
                // names, this run's files back under the temporary ones.
                for (file, how) in zip(pending, placed).reversed() {
                    switch how {
                    case .exchanged: _ = analyze_rename_exchange(file.temporary, file.final)
                    case .created: _ = rename(file.final, file.temporary)
                    case .replaced: break  // the earlier output is gone
                    }
                }
                throw .input("cannot write '\(file.final)': \(reason)")
            }
            InterruptCleanup.markOutputsWritten()
        }
    }

    /// Opens the directory and takes an exclusive `flock` on it for the
    /// renames; returns the descriptor (its closing releases the lock), or -1
    /// to rename without a lock. Best effort, and never a hang:
    /// - a directory that cannot be opened (no read permission) or locked (a
    ///   file system without `flock`): no lock;
    /// - locked already through a descriptor this process inherited across
    ///   `exec` (`flock DIR analyze --out DIR …`, the cron idiom against
    ///   overlapping runs): no lock of its own, since it would wait for its
    ///   own caller;
    /// - locked by another process: tried again for up to ``lockPatience``
    ///   seconds (another run holds it for a few milliseconds; a reader may
    ///   hold a shared one while it reads), then no lock.
    func lockForRenames() -> Int32 {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return -1 }
        var waited = 0.0
        var pause: UInt32 = 1_000  // microseconds, doubled up to 50 ms
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let reason = errno
            if reason == EINTR { continue }
            guard reason == EWOULDBLOCK, waited < lockPatience,
                waited > 0 || !Self.inheritsDescriptor(sameAs: fd)
            else {
                close(fd)
                return -1
            }
            usleep(pause)
            waited += Double(pause) / 1e6
            pause = min(pause * 2, 50_000)
        }
        return fd
    }

    /// Whether a descriptor other than `fd`, open across `exec` (no
    /// `FD_CLOEXEC`: this process's own are all opened with it), refers to
    /// the same file as `fd`. Descriptors above 1 023 are not looked at.
    static func inheritsDescriptor(sameAs fd: Int32) -> Bool {
        var target = stat()
        guard fstat(fd, &target) == 0 else { return false }
        var info = stat()
        for other in Int32(0)..<1_024 where other != fd {
            let flags = fcntl(other, F_GETFD)
            guard flags >= 0, flags & FD_CLOEXEC == 0, fstat(other, &info) == 0 else { continue }
            if info.st_dev == target.st_dev && info.st_ino == target.st_ino { return true }
        }
        return false
    }
}
