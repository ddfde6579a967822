#ifndef ANALYZE_CSUPPORT_SHIM_H
#define ANALYZE_CSUPPORT_SHIM_H
#include <malloc.h>
#include <stdint.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

/// One bit per byte of the 16 at `bytes` (bit k for byte k): set where the byte
/// ends a plain run inside a JSON string: a quote, a backslash, a control
/// character (below 0x20) or a non-ASCII byte (0x80 and above). SSE2 where the
/// target has it (four vector operations and a movemask), a plain loop elsewhere.
static inline uint32_t analyze_string_specials16(const void *bytes) {
#if defined(__SSE2__)
    __m128i v = _mm_loadu_si128((const __m128i *)bytes);
    __m128i quote = _mm_cmpeq_epi8(v, _mm_set1_epi8('"'));
    __m128i backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'));
    /* A signed compare: bytes 0x80-0xFF are negative, so this flags them too. */
    __m128i low = _mm_cmplt_epi8(v, _mm_set1_epi8(0x20));
    return (uint32_t)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, backslash), low));
#else
    const uint8_t *p = (const uint8_t *)bytes;
    uint32_t mask = 0;
    for (int k = 0; k < 16; k++) {
        uint8_t c = p[k];
        if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) mask |= 1u << k;
    }
    return mask;
#endif
}
#endif
