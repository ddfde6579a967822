#ifndef ANALYZE_CSUPPORT_SHIM_H
#define ANALYZE_CSUPPORT_SHIM_H
#include <malloc.h>
#include <stdint.h>
#include <string.h>
#if defined(__linux__)
#include <errno.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif
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

/// How many CPUs this thread's affinity mask allows (`taskset`, `numactl`,
/// a container's cpuset), or 0 when it cannot be read. The raw system call:
/// glibc's `CPU_COUNT` is a macro behind `_GNU_SOURCE`.
static inline int analyze_affinity_cpu_count(void) {
#if defined(__linux__)
    unsigned long mask[64];  /* 4 096 CPUs */
    memset(mask, 0, sizeof mask);
    long bytes = syscall(SYS_sched_getaffinity, 0, sizeof mask, mask);
    if (bytes <= 0) return 0;
    int count = 0;
    for (long i = 0; i < bytes / (long)sizeof mask[0]; i++) count += __builtin_popcountl(mask[i]);
    return count;
#else
    return 0;
#endif
}

/// Swaps the files named `a` and `b` in one step (`renameat2` with
/// `RENAME_EXCHANGE`; both must exist). The raw system call: glibc declares
/// `renameat2` only behind `_GNU_SOURCE`, and only from 2.28. Returns 0, or -1
/// with `errno` set (`EINVAL` where the file system cannot exchange, `ENOSYS`
/// on a kernel older than 3.15, `ENOENT` where either name is missing).
static inline int analyze_rename_exchange(const char *a, const char *b) {
#if defined(__linux__) && defined(SYS_renameat2)
    return (int)syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, 2 /* RENAME_EXCHANGE */);
#else
    (void)a;
    (void)b;
    errno = ENOSYS;
    return -1;
#endif
}

/// Tells the CPU the thread is spinning (x86 `pause`: the loop runs slower and
/// draws less power, and a sibling hyper-thread gets the core's resources).
static inline void analyze_cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
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

/// Whether any of the 96 bytes at `bytes` is a line feed: six 16-byte
/// compares and one movemask with SSE2 (no call, unlike `memchr`), `memchr`
/// elsewhere.
static inline int analyze_has_line_feed96(const void *bytes) {
#if defined(__SSE2__)
    const __m128i *p = (const __m128i *)bytes;
    const __m128i lf = _mm_set1_epi8('\n');
    __m128i any = _mm_cmpeq_epi8(_mm_loadu_si128(p), lf);
    for (int k = 1; k < 6; k++) any = _mm_or_si128(any, _mm_cmpeq_epi8(_mm_loadu_si128(p + k), lf));
    return _mm_movemask_epi8(any) != 0;
#else
    return memchr(bytes, '\n', 96) != NULL;
#endif
}

/// Packs a canonical UUID's text (36 bytes: 8-4-4-4-12 hex digits with
/// hyphens) into the 16 bytes it spells. Returns 1 when its letters are all
/// lowercase (or it has none), 2 when all uppercase, 0 when `text` is not such
/// a UUID (then `bytes` holds garbage). A table lookup per digit, no branch
/// per digit: the path without SSE2, and the reference the tests hold
/// ``analyze_pack_uuid`` to.
static inline int analyze_pack_uuid_portable(const uint8_t *text, uint8_t *bytes) {
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

/// ``analyze_pack_uuid_portable``'s result, computed 16 digits at a time with
/// SSE2 where the target has it (about half the instructions): the 32
/// digits are gathered around the hyphens with six loads, classified with
/// signed compares (bytes from 0x80 compare below every range), turned into
/// nibbles, and each pair folded into a byte, the 16 bytes packed by one
/// `packus`.
static inline int analyze_pack_uuid(const uint8_t *text, uint8_t *bytes) {
#if defined(__SSE2__)
    if (text[8] != '-' || text[13] != '-' || text[18] != '-' || text[23] != '-') return 0;
    uint64_t first, last;
    uint32_t second, third, fourth, fifth;
    memcpy(&first, text, 8);
    memcpy(&second, text + 9, 4);
    memcpy(&third, text + 14, 4);
    memcpy(&fourth, text + 19, 4);
    memcpy(&fifth, text + 24, 4);
    memcpy(&last, text + 28, 8);
    __m128i digits[2] = {
        _mm_set_epi64x((long long)((uint64_t)second | (uint64_t)third << 32), (long long)first),
        _mm_set_epi64x((long long)last, (long long)((uint64_t)fourth | (uint64_t)fifth << 32)),
    };
    int valid = 0xFFFF, upper = 0, lower = 0;
    __m128i pairs[2];
    for (int k = 0; k < 2; k++) {
        __m128i v = digits[k];
        __m128i isDigit = _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8('0' - 1)), _mm_cmplt_epi8(v, _mm_set1_epi8('9' + 1)));
        __m128i isUpper = _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8('A' - 1)), _mm_cmplt_epi8(v, _mm_set1_epi8('F' + 1)));
        __m128i isLower = _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8('a' - 1)), _mm_cmplt_epi8(v, _mm_set1_epi8('f' + 1)));
        __m128i isLetter = _mm_or_si128(isUpper, isLower);
        valid &= _mm_movemask_epi8(_mm_or_si128(isDigit, isLetter));
        upper |= _mm_movemask_epi8(isUpper);
        lower |= _mm_movemask_epi8(isLower);
        /* '0'-'9' → 0-9, 'a'-'f' and 'A'-'F' (low nibble 1-6) → 10-15. */
        __m128i value = _mm_add_epi8(_mm_and_si128(v, _mm_set1_epi8(0x0F)), _mm_and_si128(isLetter, _mm_set1_epi8(9)));
        /* Per 16-bit lane: the even digit (low byte) becomes the high nibble,
           the odd digit (high byte) the low nibble. */
        pairs[k] = _mm_or_si128(_mm_and_si128(_mm_slli_epi16(value, 4), _mm_set1_epi16(0x00F0)), _mm_srli_epi16(value, 8));
    }
    _mm_storeu_si128((__m128i *)bytes, _mm_packus_epi16(pairs[0], pairs[1]));
    if (valid != 0xFFFF || (upper && lower)) return 0;
    return upper ? 2 : 1;
#else
    return analyze_pack_uuid_portable(text, bytes);
#endif
}
#endif
