#ifndef ANALYZE_INTERRUPT_CLEANUP_H
#define ANALYZE_INTERRUPT_CLEANUP_H

/// The signal side of `InterruptCleanup` (AnalyzeKit/Output/InterruptCleanup.swift).
///
/// Written in C because a signal handler may only make async-signal-safe calls,
/// and Swift gives no such promise for its own code: in a debug build, the
/// first pass of a `for` loop over a range looked up a witness table through
/// `malloc`, so a signal that landed while the main thread held malloc's lock
/// hung the run for good. Here the handler only reads fixed tables and calls
/// `unlink`, `rmdir`, `write` and `_exit`; nothing on either side allocates.

/// How many files, and how many directories, can be remembered at once.
enum { analyze_interrupt_capacity = 16 };

/// Installs the handler for SIGINT, SIGTERM and SIGHUP, except for a signal
/// that is ignored at start (it stays ignored: `nohup`, a script's background
/// job). Each handled signal is held back while the handler runs.
/// `stderr_is_terminal`: the interrupt message then starts on a new row.
void analyze_interrupt_install(int stderr_is_terminal);

/// Remembers a file to remove on interrupt; returns its slot, or -1 when the
/// table is full or the path is longer than a path can be (`PATH_MAX`).
int analyze_interrupt_register_file(const char *path);
/// Remembers a directory, just made, to remove (when empty) on interrupt,
/// after the files and innermost first; returns its slot or -1 as above.
int analyze_interrupt_register_directory(const char *path);
/// Forgets a slot (a negative one is ignored).
void analyze_interrupt_unregister_file(int slot);
void analyze_interrupt_unregister_directory(int slot);

/// Every output is in place: a signal held back during the renames reports that.
void analyze_interrupt_mark_outputs_written(void);
/// Whether a progress line may be on standard error, to be erased.
void analyze_interrupt_set_progress_line(int shown);

/// The handler itself (exposed for the record; `install` sets it).
void analyze_interrupt_handle(int signal);

#endif
