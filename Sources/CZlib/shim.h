#ifndef ANALYZE_CZLIB_SHIM_H
#define ANALYZE_CZLIB_SHIM_H
#include <zlib.h>

/// `inflateInit2` is a macro; Swift can only call functions. Window bits 16+15:
/// decode exactly one gzip member (header, deflate data, CRC-32 and ISIZE checked).
static inline int czlib_inflate_init_gzip(z_streamp stream) {
    return inflateInit2(stream, 16 + MAX_WBITS);
}

/// `deflateInit2` wrapper writing one gzip member at `level` (0–9).
static inline int czlib_deflate_init_gzip(z_streamp stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
}
#endif
