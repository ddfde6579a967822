#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Removes this run's temporary output files when SIGINT, SIGTERM or SIGHUP
/// arrives, then exits with 128 + the signal (130 / 143 / 129), leaving earlier
/// outputs as they were. (SIGHUP: the terminal of a hand-run closed, or a job
/// runner hung up. SIGQUIT keeps its default, a core dump, as asked for.)
///
/// Directories made for the outputs are removed too, innermost first, when
/// empty (`rmdir` removes nothing else).
///
/// The handler may only use async-signal-safe calls, so the paths live in
/// fixed tables of C strings filled before each temporary file or directory
/// is created. (A run's `--out` deeper than the directory table's 16 new
/// levels keeps the levels beyond it, empty.)
public enum InterruptCleanup {
    static let capacity = 16
    nonisolated(unsafe) fileprivate static let paths = makeTable()
    /// Directories in the order they were made.
    nonisolated(unsafe) fileprivate static let directories = makeTable()

    private static func makeTable() -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> {
        let table = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: capacity)
        table.initialize(repeating: nil, count: capacity)
        return table
    }

    /// Installs the handlers (call once, from the executable). A signal the
    /// caller ignores stays ignored, as the convention goes: `nohup analyze …`
    /// must outlive its terminal, and a shell script's background job is
    /// started with SIGINT ignored so that a Ctrl-C meant for the script
    /// leaves it running.
    public static func install() {
        _ = paths
        _ = directories
        stderrIsTerminal = isatty(STDERR_FILENO) != 0 ? 1 : 0
        _ = outputsWritten  // set up now, not first inside the handler
        _ = progressLine
        for number in handled {
            #if canImport(Glibc)
            var current = sigaction()
            if sigaction(number, nil, &current) == 0,
               unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) {
                continue
            }
            #endif
            signal(number, handle)
        }
    }

    static let handled: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    /// Remembers the file `path` for removal on interrupt; returns its slot.
    static func register(_ path: String) -> Int? { register(path, in: paths) }

    static func unregister(_ slot: Int?) { unregister(slot, in: paths) }

    /// Remembers the directory `path`, just made, for removal on interrupt;
    /// returns its slot. Call in the order the directories are made.
    static func registerDirectory(_ path: String) -> Int? { register(path, in: directories) }

    static func unregisterDirectory(_ slot: Int?) { unregister(slot, in: directories) }

    private static func register(_ path: String, in table: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int? {
        for slot in 0..<capacity where table[slot] == nil {
            table[slot] = strdup(path)
            return slot
        }
        return nil
    }

    private static func unregister(_ slot: Int?, in table: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) {
        guard let slot, let path = table[slot] else { return }
        table[slot] = nil
        free(path)
    }

    /// Set once every output is in place; a signal held back during the
    /// renames then reports that the outputs were written.
    nonisolated(unsafe) fileprivate static var outputsWritten: sig_atomic_t = 0

    static func markOutputsWritten() { outputsWritten = 1 }

    /// Set while a progress line may be on standard error (a terminal): the
    /// interrupt message then erases it instead of starting a new line.
    nonisolated(unsafe) fileprivate static var progressLine: sig_atomic_t = 0

    /// Tells the handler whether a progress line may be on screen.
    public static func setProgressLineShown(_ shown: Bool) { progressLine = shown ? 1 : 0 }

    /// Standard error is a terminal, where the interrupt message starts on a
    /// new row (after the `^C` the terminal echoed); in a log it starts
    /// where the last message ended, a line end.
    nonisolated(unsafe) fileprivate static var stderrIsTerminal: sig_atomic_t = 0

    /// Runs `body` with the handled signals held back, so a group of renames
    /// is never cut in half.
    static func withSignalsBlocked<R>(_ body: () throws(AnalyzeError) -> R) throws(AnalyzeError) -> R {
        var blocked = sigset_t(), previous = sigset_t()
        sigemptyset(&blocked)
        for number in handled { sigaddset(&blocked, number) }
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        return try body()
    }
}

private func handle(_ signal: Int32) {
    for slot in 0..<InterruptCleanup.capacity {
        if let path = InterruptCleanup.paths[slot] { unlink(path) }
    }
    for slot in (0..<InterruptCleanup.capacity).reversed() {
        if let path = InterruptCleanup.directories[slot] { rmdir(path) }
    }
    // On a line of its own: over the progress line (erased), else on a
    // terminal below what was there.
    let start: StaticString = InterruptCleanup.progressLine != 0
        ? "\r\u{1B}[K" : InterruptCleanup.stderrIsTerminal != 0 ? "\n" : ""
    let message: StaticString = InterruptCleanup.outputsWritten != 0
        ? "analyze: interrupted after all outputs were written\n"
        : "analyze: interrupted; no output written\n"
    if start.utf8CodeUnitCount > 0 { _ = write(STDERR_FILENO, start.utf8Start, start.utf8CodeUnitCount) }
    _ = write(STDERR_FILENO, message.utf8Start, message.utf8CodeUnitCount)
    _exit(128 + signal)
}
