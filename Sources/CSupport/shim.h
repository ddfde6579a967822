#ifndef ANALYZE_CSUPPORT_SHIM_H
#define ANALYZE_CSUPPORT_SHIM_H
#include <malloc.h>

/// Large blocks always come from mmap, so memory freed after a merge or an
/// array's growth goes back to the system at once. (glibc otherwise raises its
/// mmap threshold after the first large free and keeps later large blocks in
/// its heap, where freed memory stays resident.)
static inline void analyze_return_large_blocks_to_the_system(void) {
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
}

/// Asks the CPU to start loading the cache line at `address` (a hint: never
/// faults, even for an address past the end of a buffer).
static inline void analyze_prefetch(const void *address) {
    __builtin_prefetch(address);
}
#endif
