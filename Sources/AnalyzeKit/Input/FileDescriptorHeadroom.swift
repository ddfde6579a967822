#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Checks, before a run starts, that enough file descriptors are free.
///
/// Dispatch opens three of its own (an epoll, an eventfd and a timerfd) the
/// first time a run's workers start, after the first input is opened; when
/// none is left for them, libdispatch stops the process with SIGILL and no
/// message (found by a review: a job runner that leaks descriptors, or a low
/// `ulimit -n`). The run's own opens fail with a message naming the file
/// (exit 2), so only Dispatch's need room made sure of in advance: three for
/// it, one more that its manager thread opens for a moment now and then
/// (`/proc/TID/stat`, to watch its threads: without room for it a run ended
/// with SIGILL in about 1 of 17 at the limit, found by a review), and one
/// for each input read at once.
enum FileDescriptorHeadroom {
    /// Descriptors Dispatch holds open for itself.
    static let dispatchDescriptors = 3
    /// The one Dispatch's manager thread opens for a moment.
    static let dispatchMomentary = 1

    /// Throws an input error (exit 2) when fewer than `dispatchDescriptors` +
    /// `dispatchMomentary` + `inputsAtOnce` descriptors can be opened (each worker reads its own
    /// input: the smaller of the workers and the inputs). Opens `/dev/null`
    /// that many times and closes them again; where it cannot be opened for
    /// another reason (a chroot without it), nothing is checked.
    ///
    /// Dispatch's own are not counted again where the process has them
    /// already (a caller of the library that used Dispatch before the run).
    /// `analyze` starts its progress line's timer only after this check
    /// (``Analyzer/analyze(progress:beforeReading:)``): started before it,
    /// the timer's thread could open the three while they were counted, and
    /// a run with just enough descriptors was refused now and then (seen
    /// once in a full test run on a loaded machine: two counted, then a
    /// third opened before the probe).
    static func check(inputsAtOnce: Int) throws(AnalyzeError) {
        let forDispatch = dispatchDescriptors - dispatchDescriptorsOpen() + dispatchMomentary
        let needed = forDispatch + inputsAtOnce
        var opened: [Int32] = []
        defer { for descriptor in opened { close(descriptor) } }
        var failure: Int32 = 0
        while opened.count < needed {
            let descriptor = open("/dev/null", O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                failure = errno
                break
            }
            opened.append(descriptor)
        }
        guard failure == EMFILE || failure == ENFILE else { return }
        var limit = rlimit()
        let shownLimit = getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 && limit.rlim_cur != rlim_t.max
            ? " of the \(limit.rlim_cur) this process may open (ulimit -n)" : ""
        let free = "\(opened.count) file \(opened.count == 1 ? "descriptor is" : "descriptors are") free"
        let which = failure == ENFILE ? "the system's open-file table is full" : "only \(free)\(shownLimit)"
        let forInputs = inputsAtOnce == 1 ? "1 for the input it reads" : "1 for each of the \(inputsAtOnce) inputs it reads at once"
        throw .input(
            "\(which); this run needs \(needed) ("
                + (forDispatch > 0 ? "\(forDispatch) for its thread pool and \(forInputs)" : forInputs)
                + "); no output written")
    }

    /// How many of Dispatch's three descriptors this process holds: an
    /// `anon_inode:[eventpoll]`, `[eventfd]` and `[timerfd]` among its
    /// descriptors (no other part of analyze makes one of these). None where
    /// `/proc` cannot say.
    ///
    /// Listing `/proc/self/fd` takes a descriptor; with none left (the case
    /// this check is for) the numbers below the limit are looked at one by
    /// one instead, the first 4 096 of them at most (a `readlink` each takes
    /// none). Regression: Dispatch's three were then counted again, and the
    /// message overstated what the run needed.
    static func dispatchDescriptorsOpen() -> Int {
        var kinds = Set<String>()
        func look(at path: String) {
            var target = [CChar](repeating: 0, count: 64)
            let length = readlink(path, &target, target.count)
            guard length > 0 else { return }
            let name = String(decoding: target.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if dispatchKinds.contains(name) { kinds.insert(name) }
        }
        if let handle = opendir("/proc/self/fd") {
            defer { closedir(handle) }
            while let entry = readdir(handle) {
                look(at: "/proc/self/fd/" + withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
                })
            }
        } else {
            var limit = rlimit()
            guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
            for descriptor in 0..<min(Int(clamping: limit.rlim_cur), 4096) { look(at: "/proc/self/fd/\(descriptor)") }
        }
        return kinds.count
    }

    /// What `/proc/self/fd` shows for Dispatch's descriptors.
    private static let dispatchKinds: Set<String> = ["anon_inode:[eventpoll]", "anon_inode:[eventfd]", "anon_inode:[timerfd]"]
}
