#include "interrupt_cleanup.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

/// A remembered path, stored in place.
struct slot {
    int used;
    char path[PATH_MAX];
};

/// Everything below is read and written under `lock`, recursive: a held
/// section registers and forgets paths itself.
static pthread_mutex_t lock;
static pthread_once_t lock_made = PTHREAD_ONCE_INIT;
static struct slot files[analyze_interrupt_capacity];
/// In the order the directories were made.
static struct slot directories[analyze_interrupt_capacity];
static int stderr_terminal;
static int progress_line;
static int outputs_written;
/// Whether the outputs are being renamed into place (some may be new, the
/// temporary names then hold old ones), for the crash handler, which reads it
/// without the lock.
static volatile sig_atomic_t renaming;

/// The signals the thread waits for (those not ignored at start).
static sigset_t awaited;

/// Removes the remembered files, then directories innermost first. Only
/// reads the tables: from a crash handler, a slot being filled is not yet
/// marked used.
static void remove_remembered(void) {
    for (int i = 0; i < analyze_interrupt_capacity; i++) {
        if (__atomic_load_n(&files[i].used, __ATOMIC_ACQUIRE)) unlink(files[i].path);
    }
    for (int i = analyze_interrupt_capacity - 1; i >= 0; i--) {
        if (__atomic_load_n(&directories[i].used, __ATOMIC_ACQUIRE)) rmdir(directories[i].path);
    }
}

/// Removes what is remembered, says so, and ends the process with 128 + `signal`.
/// Called with `lock` held, which is never released.
static void clean_up_and_exit(int signal) {
    remove_remembered();
    // On a line of its own: over the progress line (erased), else on a
    // terminal below what was there (after the `^C` it echoed).
    const char *start = progress_line ? "\r\033[K" : stderr_terminal ? "\n" : "";
    const char *message = signal == SIGXCPU
        ? (outputs_written ? "analyze: stopped at the CPU time limit after all outputs were written\n"
                           : "analyze: stopped at the CPU time limit; no output written\n")
        : (outputs_written ? "analyze: interrupted after all outputs were written\n"
                           : "analyze: interrupted; no output written\n");
    if (start[0] != 0) (void)!write(STDERR_FILENO, start, strlen(start));
    (void)!write(STDERR_FILENO, message, strlen(message));
    _exit(128 + signal);
}

static void make_lock(void) {
    pthread_mutexattr_t attributes;
    pthread_mutexattr_init(&attributes);
    pthread_mutexattr_settype(&attributes, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&lock, &attributes);
    pthread_mutexattr_destroy(&attributes);
}

static void take_lock(void) {
    pthread_once(&lock_made, make_lock);
    pthread_mutex_lock(&lock);
}

static void *wait_for_signals(void *unused) {
    (void)unused;
    for (;;) {
        int signal = 0;
        if (sigwait(&awaited, &signal) != 0) continue;
        take_lock();
        clean_up_and_exit(signal);
    }
    return NULL;
}

int analyze_interrupt_install(int stderr_is_terminal) {
    // SIGXCPU: a soft CPU time limit below the hard one (`ulimit -S -t`,
    // `prlimit --cpu=S:H`), whose default action ends the run as abruptly as
    // SIGKILL would, with its temporary files left in --out. (Where the two
    // are one, as `ulimit -t N` sets them, the kernel sends SIGKILL instead.)
    static const int handled[] = {SIGINT, SIGTERM, SIGHUP, SIGXCPU};
    stderr_terminal = stderr_is_terminal ? 1 : 0;
    sigemptyset(&awaited);
    int any = 0;
    for (size_t i = 0; i < sizeof handled / sizeof handled[0]; i++) {
        struct sigaction current;
        if (sigaction(handled[i], NULL, &current) == 0 && current.sa_handler == SIG_IGN) continue;
        sigaddset(&awaited, handled[i]);
        any = 1;
    }
    if (!any) return 0;
    sigset_t previous;
    pthread_sigmask(SIG_BLOCK, &awaited, &previous);
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    size_t stack = 64 * 1024;  // it only waits, then unlinks and writes
    if (stack < (size_t)PTHREAD_STACK_MIN) stack = (size_t)PTHREAD_STACK_MIN;
    pthread_attr_setstacksize(&attributes, stack);
    pthread_t thread;
    int failure = pthread_create(&thread, &attributes, wait_for_signals, NULL);
    pthread_attr_destroy(&attributes);
    if (failure != 0) pthread_sigmask(SIG_SETMASK, &previous, NULL);
    return failure;
}

static int remember(struct slot *table, const char *path) {
    size_t length = strlen(path);
    if (length >= PATH_MAX) return -1;
    int slot = -1;
    take_lock();
    for (int i = 0; i < analyze_interrupt_capacity; i++) {
        if (table[i].used) continue;
        memcpy(table[i].path, path, length + 1);
        __atomic_store_n(&table[i].used, 1, __ATOMIC_RELEASE);  // after the path: see remove_remembered
        slot = i;
        break;
    }
    pthread_mutex_unlock(&lock);
    return slot;
}

static void forget(struct slot *table, int slot) {
    if (slot < 0 || slot >= analyze_interrupt_capacity) return;
    take_lock();
    __atomic_store_n(&table[slot].used, 0, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&lock);
}

int analyze_interrupt_register_file(const char *path) { return remember(files, path); }
int analyze_interrupt_register_directory(const char *path) { return remember(directories, path); }
void analyze_interrupt_unregister_file(int slot) { forget(files, slot); }
void analyze_interrupt_unregister_directory(int slot) { forget(directories, slot); }

void analyze_interrupt_hold(void) { take_lock(); }
void analyze_interrupt_release(void) { pthread_mutex_unlock(&lock); }

void analyze_interrupt_set_renaming(int active) { renaming = active ? 1 : 0; }

/// The crash signals and the actions they had before ours.
static const int crash_signals[] = {SIGILL, SIGTRAP, SIGABRT, SIGSEGV, SIGBUS, SIGFPE};
#define CRASH_SIGNAL_COUNT (sizeof crash_signals / sizeof crash_signals[0])
static struct sigaction earlier_actions[CRASH_SIGNAL_COUNT];

static void write_text(const char *text) { (void)!write(STDERR_FILENO, text, strlen(text)); }

static void on_crash(int signal, siginfo_t *info, void *context) {
    const char *name = signal == SIGILL ? "SIGILL" : signal == SIGTRAP ? "SIGTRAP" : signal == SIGABRT ? "SIGABRT"
        : signal == SIGSEGV ? "SIGSEGV" : signal == SIGBUS ? "SIGBUS" : "SIGFPE";
    int renaming_now = renaming;
    if (!renaming_now && !outputs_written) remove_remembered();
    if (progress_line) write_text("\r\033[K");
    write_text("analyze: stopped by ");
    write_text(name);
    write_text(" (most often memory running out under a limit such as ulimit -v or ulimit -s, else a bug)");
    write_text(outputs_written ? " after all outputs were written\n"
               : renaming_now ? "; --out may hold a mix of old and new outputs, and its .NAME.tmp-* files the old ones\n"
                          : "; no output written\n");
    // A handler that was there before (the Swift runtime's backtracer, in
    // builds that have it) runs next; whatever it does, the signal's default
    // action then ends the process (it is blocked until this returns).
    for (size_t i = 0; i < CRASH_SIGNAL_COUNT; i++) {
        if (crash_signals[i] != signal) continue;
        struct sigaction *earlier = &earlier_actions[i];
        // With the signals it asked to have blocked while it runs.
        pthread_sigmask(SIG_BLOCK, &earlier->sa_mask, NULL);
        if (earlier->sa_flags & SA_SIGINFO) {
            if (earlier->sa_sigaction != NULL) earlier->sa_sigaction(signal, info, context);
        } else if (earlier->sa_handler != SIG_DFL && earlier->sa_handler != SIG_IGN) {
            earlier->sa_handler(signal);
        }
    }
    struct sigaction fallback;
    memset(&fallback, 0, sizeof fallback);
    fallback.sa_handler = SIG_DFL;
    sigemptyset(&fallback.sa_mask);
    sigaction(signal, &fallback, NULL);
    raise(signal);
    // Taken here, not after returning: the earlier handler may have left the
    // signal blocked for the return (the backtracer, given a signal sent with
    // kill(2) to the thread that waits in sigwait, let the run go on).
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, signal);
    pthread_sigmask(SIG_UNBLOCK, &only, NULL);
}

/// The calling thread's alternate stack, where it has none: without one a
/// stack overflow cannot run the handler, and the kernel ends the process
/// with nothing said (a release build at `ulimit -s 48`, a debug build at
/// up to about 400 KiB). Static, so nothing is allocated for it.
static char crash_stack[64 * 1024];

int analyze_crash_install(void) {
    stack_t current;
    if (sigaltstack(NULL, &current) == 0 && (current.ss_flags & SS_DISABLE)) {
        stack_t ours;
        memset(&ours, 0, sizeof ours);
        ours.ss_sp = crash_stack;
        ours.ss_size = sizeof crash_stack;
        if (sigaltstack(&ours, NULL) != 0) return errno;
    }
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_crash;
    // On the thread's alternate stack where it has one (the Swift runtime's
    // backtracer sets one up, so that a stack overflow can still be
    // reported), and with the other crash signals held off until the
    // handler ends the process. Regression: without SA_ONSTACK a stack
    // overflow killed the process with neither line nor backtrace, and a
    // second crash signal cut the first one's report short.
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    for (size_t i = 0; i < CRASH_SIGNAL_COUNT; i++) sigaddset(&action.sa_mask, crash_signals[i]);
    for (size_t i = 0; i < CRASH_SIGNAL_COUNT; i++) {
        if (sigaction(crash_signals[i], &action, &earlier_actions[i]) != 0) return errno;
    }
    return 0;
}

void analyze_interrupt_mark_outputs_written(void) {
    take_lock();
    outputs_written = 1;
    pthread_mutex_unlock(&lock);
}

void analyze_interrupt_set_progress_line(int shown) {
    take_lock();
    progress_line = shown ? 1 : 0;
    pthread_mutex_unlock(&lock);
}
