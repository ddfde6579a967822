#ifndef ANALYZE_CZLIB_SHIM_H
#define ANALYZE_CZLIB_SHIM_H
#include <zlib.h>

/// `inflateInit2` is a macro; Swift can only call functions. Window bits 16+15:
/// decode exactly one gzip member with its header (`ZlibInflateBackend` then turns
/// zlib's own check of the data off with `inflateValidate` and checks the CRC-32
/// and ISIZE itself, as the other backends do).
static inline int czlib_inflate_init_gzip(z_streamp stream) {
    return inflateInit2(stream, 16 + MAX_WBITS);
}

/// `deflateInit2` wrapper writing one gzip member at `level` (0–9).
static inline int czlib_deflate_init_gzip(z_streamp stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
}
/// `deflateInit2` with every parameter (tests write streams of every shape):
/// `window_bits` 9–15 (add 16 for a gzip member, negate for raw deflate).
static inline int czlib_deflate_init(z_streamp stream, int level, int window_bits, int mem_level, int strategy) {
    return deflateInit2(stream, level, Z_DEFLATED, window_bits, mem_level, strategy);
}
#endif
