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
#endif
