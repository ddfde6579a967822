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

/// Gives memory that was freed but is still held by malloc (blocks below the
/// mmap threshold, in any thread's arena) back to the system.
static inline void analyze_return_free_memory(void) {
    malloc_trim(0);
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

/// Packs a canonical UUID's text (36 bytes: 8-4-4-4-12 hex digits with
/// hyphens) into the 16 bytes it spells. Returns 1 when its letters are all
/// lowercase (or it has none), 2 when all uppercase, 0 when `text` is not such
/// a UUID (then `bytes` holds garbage). A table lookup per digit, no branch
/// per digit.
static inline int analyze_pack_uuid(const uint8_t *text, uint8_t *bytes) {
    /* Per byte value: the digit's value, | 0x10 for a-f, | 0x20 for A-F; 0x80: not hex. */
    static const uint8_t digit[256] = {
        [0 ... 255] = 0x80,
        ['0'] = 0, ['1'] = 1, ['2'] = 2, ['3'] = 3, ['4'] = 4,
        ['5'] = 5, ['6'] = 6, ['7'] = 7, ['8'] = 8, ['9'] = 9,
        ['a'] = 0x1A, ['b'] = 0x1B, ['c'] = 0x1C, ['d'] = 0x1D, ['e'] = 0x1E, ['f'] = 0x1F,
        ['A'] = 0x2A, ['B'] = 0x2B, ['C'] = 0x2C, ['D'] = 0x2D, ['E'] = 0x2E, ['F'] = 0x2F,
    };
    /* Where byte k's two digits start in the text. */
    static const uint8_t offset[16] = {0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34};
    if (text[8] != '-' || text[13] != '-' || text[18] != '-' || text[23] != '-') return 0;
    uint8_t flags = 0;
    for (int k = 0; k < 16; k++) {
        uint8_t high = digit[text[offset[k]]], low = digit[text[offset[k] + 1]];
        flags |= high | low;
        bytes[k] = (uint8_t)(high << 4) | (low & 0x0F);
    }
    if ((flags & 0x80) || (flags & 0x30) == 0x30) return 0;
    return (flags & 0x20) ? 2 : 1;
}
#endif
