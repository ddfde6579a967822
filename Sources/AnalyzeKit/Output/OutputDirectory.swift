#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The `--out` directory, written atomically (SPEC §6).
///
/// Every file is first written in full under a temporary name in the same
/// directory and flushed; only when all were written are they renamed into
/// place. A failure before the renames removes the temporary files and leaves
/// whatever an earlier run wrote exactly as it was.
struct OutputDirectory {
    let path: String
    /// How long the renames wait for a lock on the directory that another
    /// process holds before they go ahead without it (``putInPlace(_:)``).
    var lockPatience: Double = 10

    /// Where output `name` is written before its rename:
    /// `path/.NAME.tmp-PID-TAG`, with a TAG of 16 random hex digits per run.
    /// The PID alone does not tell runs apart: two containers that share
    /// `--out` often run `analyze` as PID 1 in both, and each then removed or
    /// renamed the other's temporary files (64 pairs in 100 ended with a file
    /// missing, a mix, or a run failing).
    private func temporaryPath(for name: String, pid: String, tag: String) -> String {
        path + "/." + name + ".tmp-" + pid + "-" + tag
    }

    /// 16 hex digits from the system's random source.
    private static func randomTag() -> String {
        let hex = String(UInt64.random(in: .min ... .max), radix: 16)
        return String(repeating: "0", count: 16 - hex.utf8.count) + hex
    }

    /// Checks before any work that the directory can be created and written,
    /// so a long run does not fail only at its end.
    func checkWritable() throws(AnalyzeError) {
        // The longest path written (the longest output's temporary name, with
        // a PID of 10 digits) must fit in PATH_MAX with its NUL.
        let longest = temporaryPath(for: "profile_switches.csv", pid: "4294967295", tag: Self.randomTag())
        if longest.utf8.count >= Int(PATH_MAX) {
            throw .input("cannot write to '\(path)': \(String(cString: strerror(ENAMETOOLONG)))")
        }
        var info = stat()
        if let reason = Self.brokenLink(path) { throw .input("cannot write to '\(path)': \(reason)") }
        if stat(path, &info) == 0 {
            guard (info.st_mode & S_IFMT) == S_IFDIR else {
                throw .input("cannot write to '\(path)': not a directory")
            }
            guard access(path, W_OK | X_OK) == 0 else {
                throw .input("cannot write to '\(path)': \(String(cString: strerror(errno)))")
            }
            return
        }
        // Not there yet: no name in it may be too long to create (NAME_MAX),
        // and the nearest existing ancestor must let us create it.
        if path.utf8.split(separator: UInt8(ascii: "/")).contains(where: { $0.count > Int(NAME_MAX) }) {
            throw .input("cannot create '\(path)': \(String(cString: strerror(ENAMETOOLONG)))")
        }
        var ancestor = path
        while true {
            ancestor = Self.parent(of: ancestor)
            if let reason = Self.brokenLink(ancestor) {
                throw .input("cannot create '\(path)': '\(ancestor)' is \(reason)")
            }
            if stat(ancestor, &info) == 0 { break }
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR, access(ancestor, W_OK | X_OK) == 0 else {
            throw .input("cannot create '\(path)': '\(ancestor)' is not a writable directory")
        }
    }

    /// Writes `files` atomically into the directory, creating it if needed.
    /// Each file's text goes to disk in blocks as its rows are written, so
    /// no file is held whole in memory.
    /// Returns how the renames stood with the directory's lock.
    @discardableResult
    func write(_ files: [CSVFile]) throws(AnalyzeError) -> RenameLock {
        // Directories made for this run are removed again (when still empty)
        // if it fails or is interrupted before its outputs are in place.
        var created: [(path: String, slot: Int?)] = []
        defer { for directory in created { InterruptCleanup.unregisterDirectory(directory.slot) } }
        do throws(AnalyzeError) {
            try createDirectories(path) { directory, slot in created.append((directory, slot)) }
            return try writeFiles(files)
        } catch {
            for directory in created.reversed() { rmdir(directory.path) }  // innermost first
            throw error
        }
    }

    /// ``write(_:)`` once the directory exists.
    private func writeFiles(_ files: [CSVFile]) throws(AnalyzeError) -> RenameLock {
        // A directory where an output goes would fail its rename: refused
        // before any write. (A rename that fails for another reason is undone
        // with those before it: ``putInPlace(_:)``.)
        for file in files {
            var info = stat()
            let final = path + "/" + file.name
            if lstat(final, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR {
                throw .input("cannot write '\(final)': it is a directory")
            }
        }
        var written: [PendingOutput] = []
        func removeTemporaries() {
            for file in written {
                unlink(file.temporary)
                InterruptCleanup.unregister(file.slot)
            }
        }
        let pid = "\(getpid())", tag = Self.randomTag()
        let newFileMode = Self.newFileMode()
        do throws(AnalyzeError) {
            for file in files {
                let final = path + "/" + file.name
                let temporary = temporaryPath(for: file.name, pid: pid, tag: tag)
                // Created, never opened (`O_EXCL`): whatever might stand under
                // the name is not followed, truncated or removed, and no FIFO
                // there blocks the open while an interrupt waits. (Nothing
                // should: the name is new to this run.) Remembered and created
                // while an interrupt waits: the thread that cleans up runs
                // beside this one, and a file created just after its removals
                // would stay. Remembered first: a crash's handler, which takes
                // no lock, may run between the two, and removing a name not
                // yet made is harmless, a file made and not remembered is left.
                let fd = try InterruptCleanup.withInterruptsHeld { () throws(AnalyzeError) in
                    let slot = InterruptCleanup.register(temporary)
                    do throws(AnalyzeError) {
                        let fd = try Self.create(temporary)
                        written.append(PendingOutput(temporary: temporary, final: final, slot: slot))
                        return fd
                    } catch {
                        InterruptCleanup.unregister(slot)
                        throw error
                    }
                }
                Self.setPermissions(on: fd, replacing: final, newFileMode: newFileMode)
                try Self.write(file, to: fd, at: temporary)
            }
        } catch {
            removeTemporaries()
            throw error
        }
        return try putInPlace(written)
    }

    /// Creates the file at `path`, readable and writable by this user only
    /// until ``setPermissions(on:replacing:newFileMode:)`` has given it its
    /// mode: created 0644, an output meant to be private could be opened by
    /// anyone in that moment and read once written (a review did so 31
    /// times in 300 runs).
    private static func create(_ path: String) throws(AnalyzeError) -> Int32 {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .input("cannot write '\(path)': \(String(cString: strerror(errno)))") }
        return fd
    }

    /// Writes `file` to `fd` (the file at `path`), flushes it and closes it.
    private static func write(_ file: CSVFile, to fd: Int32, at path: String) throws(AnalyzeError) {
        defer { close(fd) }
        // The writer's sink cannot throw: the first failure is kept, later
        // blocks are dropped, and the failure is thrown once the rows are done.
        var failure: Int32?
        var csv = CSVWriter(header: file.header) { block in
            guard failure == nil else { return }
            failure = writeAll(fd, block)
        }
        file.rows(&csv)
        csv.finish()
        if let failure { throw .input("cannot write '\(path)': \(String(cString: strerror(failure)))") }
        guard fsync(fd) == 0 else { throw .input("cannot write '\(path)': \(String(cString: strerror(errno)))") }
    }

    /// Writes all of `bytes` to `fd`; returns `errno` on failure.
    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Int32? {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            offset += n
        }
        return nil
    }

    /// Creates `directory` and its missing ancestors, outermost first,
    /// calling `created` with each one made here and its slot in the
    /// interrupt cleanup's table, where the innermost ones are remembered
    /// (the table's capacity): `rmdir` can remove them in turn (with the
    /// outermost remembered instead, an `--out` deeper than the table would
    /// have left every new level).
    private func createDirectories(
        _ directory: String, created: (String, _ slot: Int?) -> Void
    ) throws(AnalyzeError) {
        var missing: [String] = []  // innermost first
        var info = stat()
        var ancestor = directory
        while stat(ancestor, &info) != 0 {
            missing.append(ancestor)
            let parent = Self.parent(of: ancestor)
            if parent == ancestor { break }
            ancestor = parent
        }
        for (depth, level) in missing.reversed().enumerated() {
            // Remembered and made while an interrupt waits: one between the
            // two would leave the directory behind (seen in CI, about 1 run in
            // 500 signalled just as the directory appeared). Remembered first,
            // for a crash's handler, which takes no lock (in CI a crash just
            // as the directory appeared left it); forgotten when not made here.
            try InterruptCleanup.withInterruptsHeld { () throws(AnalyzeError) in
                let remember = depth >= missing.count - InterruptCleanup.capacity
                let slot = remember ? InterruptCleanup.registerDirectory(level) : nil
                if mkdir(level, 0o755) == 0 {
                    created(level, slot)
                    return
                }
                let failure = errno
                InterruptCleanup.unregisterDirectory(slot)
                if failure != EEXIST {
                    throw .input("cannot create '\(level)': \(String(cString: strerror(failure)))")
                }
            }
        }
    }

    /// What is wrong with `path` when it is a symbolic link that leads
    /// nowhere or in a loop (no directory can be made there: said before the
    /// input is read, not after), else nil.
    private static func brokenLink(_ path: String) -> String? {
        // Without its trailing slashes: `lstat("link/")` follows the link.
        let link = withoutTrailingSlashes(path)
        var info = stat()
        guard stat(link, &info) != 0, case let failure = errno, failure == ENOENT || failure == ELOOP,
            lstat(link, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK
        else { return nil }
        return failure == ENOENT ? "a symbolic link to nothing" : "a symbolic link in a loop"
    }

    /// `path` without its trailing slashes, `/` itself kept.
    private static func withoutTrailingSlashes(_ path: String) -> String {
        var trimmed = path
        while trimmed.utf8.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        return trimmed
    }

    private static func parent(of path: String) -> String {
        let trimmed = withoutTrailingSlashes(path)
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }
}
