import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Checks, before a run starts, that the threads it needs can be started.
///
/// libdispatch, which runs the workers and the tables, sleeps and retries
/// when it cannot start a thread: a passing shortage recovers, but under a
/// fixed limit the run waits for ever (a cgroup's `pids.max`, systemd's
/// `TasksMax=`, `ulimit -u`, or an address-space limit, `ulimit -v`, with no
/// room for another 8 MiB stack: found by reviews). So a run first starts
/// that many threads of its own at once, with the default stack, and fails
/// with a message when it cannot. A limit met later in the run, by memory the
/// run has since taken, is not found here.
enum ThreadHeadroom {
    /// Throws an input error (exit 2) when the threads Dispatch needs for a
    /// run with `workers` workers cannot be running at once, besides the
    /// calling thread and the one that takes signals: max(2, workers) (a run
    /// waits for ever with fewer than two, one worker or two, and takes
    /// seconds with two for two workers, but finishes). Each waits until all
    /// were started (or one could not be), then ends; all are joined before
    /// it returns.
    static func check(workers: Int) throws(AnalyzeError) {
        let count = max(2, workers)
        let shared = Shared()
        var threads: [pthread_t] = []
        var failure: Int32 = 0
        for _ in 0..<count {
            var thread = pthread_t()
            let context = Unmanaged.passRetained(shared).toOpaque()
            let result = pthread_create(&thread, nil, { context in
                let shared = Unmanaged<Shared>.fromOpaque(context!).takeRetainedValue()
                while !shared.release.load(ordering: .acquiring) { usleep(100) }
                return nil
            }, context)
            guard result == 0 else {
                Unmanaged<Shared>.fromOpaque(context).release()
                failure = result
                break
            }
            threads.append(thread)
        }
        shared.release.store(true, ordering: .releasing)
        for thread in threads { pthread_join(thread, nil) }
        guard failure != 0 else { return }
        throw .input(
            "cannot start \(count) threads (\(String(cString: strerror(failure)))), which a run with \(workers) "
                + "\(workers == 1 ? "worker" : "workers") needs: a limit on tasks (pids.max, TasksMax=, ulimit -u) "
                + "or on address space (ulimit -v) is too tight; no output written")
    }

    private final class Shared: Sendable {
        let release = Atomic<Bool>(false)
    }
}
