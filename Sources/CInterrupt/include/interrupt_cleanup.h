#ifndef ANALYZE_INTERRUPT_CLEANUP_H
#define ANALYZE_INTERRUPT_CLEANUP_H

/// The signal side of `InterruptCleanup` (AnalyzeKit/Output/InterruptCleanup.swift).
///
/// SIGINT, SIGTERM, SIGHUP and SIGXCPU (those not ignored at start) are blocked in
/// every thread and taken by one thread of their own with `sigwait`, which
/// removes the remembered files and directories and ends the process. Not a
/// handler: a process-directed signal goes to any thread that does not block
/// it, and a thread just made starts with its creator's mask for a moment
/// (libdispatch blocks signals in its workers only once they run), so a
/// handler could run beside the main thread in the middle of what it must not
/// cut in half (in CI: a directory made but not yet remembered was left
/// behind). The thread takes the same lock as those sections, so it waits for
/// them to end. It never allocates: the tables are fixed, the paths copied in
/// place.

/// How many files, and how many directories, can be remembered at once.
enum { analyze_interrupt_capacity = 16 };

/// Blocks SIGINT, SIGTERM, SIGHUP and SIGXCPU in the calling thread (and so in every
/// thread it makes later: call before any other thread exists) and starts the
/// thread that waits for them. A signal ignored at start stays ignored and is
/// left alone (`nohup`, a script's background job). `stderr_is_terminal`: the
/// interrupt message then starts on a new row. Returns 0, or an errno value
/// when the thread could not be made (the signals then keep their defaults).
int analyze_interrupt_install(int stderr_is_terminal);

/// Installs handlers for the signals of a crash (SIGILL, SIGTRAP, SIGABRT,
/// SIGSEGV, SIGBUS, SIGFPE): a trap, most often memory running out under an
/// address-space limit (a Swift allocation that fails traps), else a bug. The
/// handler removes the remembered files and directories (not while the outputs
/// are renamed: some may be in place, the old ones under temporary names),
/// writes one line saying what
/// stopped the run, calls the handler that was there before (the Swift
/// runtime's backtracer, where a build has it), and then lets the signal take
/// its default action, so the process ends as the signal would end it (128 +
/// the signal, a core dump where enabled). Unlike the
/// signals above it runs on the thread that crashed; it takes no lock and only
/// reads the tables (a slot is marked used only once its path is copied).
/// Call it on the main thread: it gives that thread an alternate stack when
/// it has none, so that a stack overflow there is reported too.
/// Returns 0, or an errno value when a handler could not be installed.
int analyze_crash_install(void);

/// Remembers a file to remove on interrupt; returns its slot, or -1 when the
/// table is full or the path is longer than a path can be (`PATH_MAX`).
int analyze_interrupt_register_file(const char *path);
/// Remembers a directory to remove (when empty) on interrupt, after the files
/// and innermost first; returns its slot or -1 as above. Call in the order the
/// directories are made, inside a held section with the `mkdir`.
int analyze_interrupt_register_directory(const char *path);
/// Forgets a slot (a negative one is ignored).
void analyze_interrupt_unregister_file(int slot);
void analyze_interrupt_unregister_directory(int slot);

/// Starts and ends a section an interrupt waits for (the lock the signal
/// thread takes; sections may nest).
void analyze_interrupt_hold(void);
void analyze_interrupt_release(void);

/// The outputs are being renamed into place (1) or not (0), for the crash handler.
void analyze_interrupt_set_renaming(int active);

/// Every output is in place: an interrupt that waited for the renames reports that.
void analyze_interrupt_mark_outputs_written(void);
/// Whether a progress line may be on standard error, to be erased.
void analyze_interrupt_set_progress_line(int shown);

#endif
