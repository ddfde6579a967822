#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension OutputDirectory {
    /// The mode of an output that replaces none: 0644 less the umask, as
    /// `open` would make it. (Read by setting the umask and putting it back:
    /// no other thread of a run creates files at this point.)
    static func newFileMode() -> mode_t {
        let mask = umask(0o022)
        umask(mask)
        return 0o644 & ~mask
    }

    /// Gives the new file `fd` its permissions: those of the output `final`
    /// that it replaces, where that output is a regular file of this user's,
    /// else `newFileMode`. A review found an operator's `chmod 640` on the
    /// outputs undone by every run.
    ///
    /// - The group is kept where this user may set it (root, or one of the
    ///   user's groups); where not, the group's bits are dropped, so that they
    ///   do not pass to the user's own group.
    /// - An earlier output of another user's gives nothing: a file planted
    ///   with 0666 in a shared directory must not make this run's output
    ///   writable by all.
    static func setPermissions(on fd: Int32, replacing final: String, newFileMode: mode_t) {
        var earlier = stat()
        guard lstat(final, &earlier) == 0, (earlier.st_mode & S_IFMT) == S_IFREG, earlier.st_uid == geteuid() else {
            _ = fchmod(fd, newFileMode)
            return
        }
        var mode = earlier.st_mode & 0o777
        var created = stat()
        if fchown(fd, uid_t.max, earlier.st_gid) != 0 || fstat(fd, &created) != 0 || created.st_gid != earlier.st_gid {
            mode &= ~0o070
        }
        _ = fchmod(fd, mode)  // after the chown, which may clear bits
    }
}
