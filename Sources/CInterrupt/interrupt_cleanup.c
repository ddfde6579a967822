#include "interrupt_cleanup.h"

#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

/// A remembered path, stored in place (no allocation to free while a handler
/// may be reading it). `used` is set after the path is written and cleared
/// before the slot is reused.
struct slot {
    volatile sig_atomic_t used;
    char path[PATH_MAX];
};

static struct slot files[analyze_interrupt_capacity];
/// In the order the directories were made.
static struct slot directories[analyze_interrupt_capacity];

static volatile sig_atomic_t stderr_terminal;
static volatile sig_atomic_t progress_line;
static volatile sig_atomic_t outputs_written;

static const int handled[] = {SIGINT, SIGTERM, SIGHUP};
enum { handled_count = sizeof handled / sizeof handled[0] };

void analyze_interrupt_handle(int signal) {
    for (int i = 0; i < analyze_interrupt_capacity; i++) {
        if (files[i].used) unlink(files[i].path);
    }
    for (int i = analyze_interrupt_capacity - 1; i >= 0; i--) {
        if (directories[i].used) rmdir(directories[i].path);
    }
    // On a line of its own: over the progress line (erased), else on a
    // terminal below what was there (after the `^C` it echoed).
    const char *start = progress_line ? "\r\033[K" : stderr_terminal ? "\n" : "";
    const char *message = outputs_written
        ? "analyze: interrupted after all outputs were written\n"
        : "analyze: interrupted; no output written\n";
    if (start[0] != 0) (void)!write(STDERR_FILENO, start, strlen(start));
    (void)!write(STDERR_FILENO, message, strlen(message));
    _exit(128 + signal);
}

void analyze_interrupt_install(int stderr_is_terminal) {
    stderr_terminal = stderr_is_terminal ? 1 : 0;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = analyze_interrupt_handle;
    sigemptyset(&action.sa_mask);
    for (int i = 0; i < handled_count; i++) sigaddset(&action.sa_mask, handled[i]);
    for (int i = 0; i < handled_count; i++) {
        struct sigaction current;
        if (sigaction(handled[i], NULL, &current) == 0 && current.sa_handler == SIG_IGN) continue;
        sigaction(handled[i], &action, NULL);
    }
}

static int remember(struct slot *table, const char *path) {
    size_t length = strlen(path);
    if (length >= PATH_MAX) return -1;
    for (int i = 0; i < analyze_interrupt_capacity; i++) {
        if (table[i].used) continue;
        memcpy(table[i].path, path, length + 1);
        __atomic_signal_fence(__ATOMIC_SEQ_CST);  // the path before the flag
        table[i].used = 1;
        return i;
    }
    return -1;
}

static void forget(struct slot *table, int slot) {
    if (slot < 0 || slot >= analyze_interrupt_capacity) return;
    table[slot].used = 0;
}

int analyze_interrupt_register_file(const char *path) { return remember(files, path); }
int analyze_interrupt_register_directory(const char *path) { return remember(directories, path); }
void analyze_interrupt_unregister_file(int slot) { forget(files, slot); }
void analyze_interrupt_unregister_directory(int slot) { forget(directories, slot); }
void analyze_interrupt_mark_outputs_written(void) { outputs_written = 1; }
void analyze_interrupt_set_progress_line(int shown) { progress_line = shown ? 1 : 0; }
