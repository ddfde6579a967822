import CInterrupt
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Removes this run's temporary output files when SIGINT, SIGTERM, SIGHUP or
/// SIGXCPU arrives, then exits with 128 + the signal (130 / 143 / 129 / 152),
/// leaving earlier outputs as they were. (SIGHUP: the terminal of a hand-run
/// closed, or a job runner hung up. SIGXCPU: a soft CPU time limit below the
/// hard one was reached. SIGQUIT keeps its default, a core dump, as asked for.)
///
/// Directories made for the outputs are removed too, innermost first, when
/// empty (`rmdir` removes nothing else).
///
/// The signals are taken by a thread of their own, in C (`Sources/CInterrupt`,
/// where the header says why not a handler). It removes the paths remembered
/// here, copied into fixed tables before each temporary file or directory is
/// created. (Of an `--out` more new levels deep than the directory table's
/// 16, the innermost 16 are remembered: an interrupt leaves the outer ones,
/// empty.)
public enum InterruptCleanup {
    static let capacity = Int(analyze_interrupt_capacity)

    /// Starts taking the signals (call once, from the executable, before any
    /// other thread is made: the threads made later inherit the blocked
    /// signals). A signal the caller ignores stays ignored, as the convention
    /// goes: `nohup analyze …` must outlive its terminal, and a shell script's
    /// background job is started with SIGINT ignored so that a Ctrl-C meant
    /// for the script leaves it running.
    ///
    /// Returns a warning for standard error when the thread could not be
    /// started (a container's limit on processes): the signals then keep
    /// their default action, which leaves a write phase's temporary files.
    ///
    /// A crash (SIGILL, SIGTRAP, SIGABRT, SIGSEGV, SIGBUS, SIGFPE: most often
    /// memory running out under an address-space limit, since a Swift
    /// allocation that fails traps) removes the same files, says so in one
    /// line, and then ends the process as the signal would have (found by a
    /// review: under `ulimit -v` a run could end with SIGILL and nothing on
    /// standard error).
    public static func install() -> String? {
        _ = analyze_crash_install()
        let failure = analyze_interrupt_install(isatty(STDERR_FILENO) != 0 ? 1 : 0)
        guard failure != 0 else { return nil }
        return "cannot start the thread that takes interrupts (\(String(cString: strerror(failure)))); "
            + "an interrupt while the outputs are written will leave their temporary files"
    }

    /// Remembers the file `path` for removal on interrupt; returns its slot.
    static func register(_ path: String) -> Int? { slot(analyze_interrupt_register_file(path)) }

    static func unregister(_ slot: Int?) {
        if let slot { analyze_interrupt_unregister_file(Int32(slot)) }
    }

    /// Remembers the directory `path` for removal on interrupt; returns its
    /// slot. Call in the order the directories are made, in the same
    /// ``withInterruptsHeld(_:)`` as the `mkdir`.
    static func registerDirectory(_ path: String) -> Int? { slot(analyze_interrupt_register_directory(path)) }

    static func unregisterDirectory(_ slot: Int?) {
        if let slot { analyze_interrupt_unregister_directory(Int32(slot)) }
    }

    private static func slot(_ raw: Int32) -> Int? { raw < 0 ? nil : Int(raw) }

    /// Marks every output as in place; an interrupt that waited for the
    /// renames then reports that the outputs were written.
    static func markOutputsWritten() { analyze_interrupt_mark_outputs_written() }

    /// Tells the crash handler that the outputs are being renamed into place:
    /// it then removes nothing (the temporary names may hold old outputs).
    static func setRenaming(_ active: Bool) { analyze_interrupt_set_renaming(active ? 1 : 0) }

    /// Tells the cleanup whether a progress line may be on standard error (a
    /// terminal): the interrupt message then erases it instead of starting a
    /// new line.
    public static func setProgressLineShown(_ shown: Bool) { analyze_interrupt_set_progress_line(shown ? 1 : 0) }

    /// Runs `body` while an interrupt waits, so a group of renames is never
    /// cut in half, nor a directory made and not yet remembered, nor a
    /// progress line drawn after the interrupt's message. Keep it short: a
    /// Ctrl-C takes effect only after it. (Sections may nest.)
    public static func withInterruptsHeld<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        analyze_interrupt_hold()
        defer { analyze_interrupt_release() }
        return try body()
    }
}
