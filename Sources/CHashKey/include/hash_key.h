#ifndef ANALYZE_HASH_KEY_H
#define ANALYZE_HASH_KEY_H

#include <stdint.h>

/// The process-wide key of `ByteHash` (AnalyzeKit/Parsing/ByteHash.swift),
/// set before `main` runs and never written again: `ANALYZE_HASH_SEED` when it
/// is an unsigned 64-bit decimal integer as Swift's `UInt64(String)` reads it
/// (an optional sign, `-` only before zero, then digits), else 64 random bits.
///
/// A C global rather than a Swift `static let`: Swift reaches a lazily
/// initialised global through `swift_once` on every read, and `ByteHash` reads
/// the key several times a line (1.2 % of the instructions of a run over 100 k lines).
static inline uint64_t analyze_hash_key(void) {
    extern uint64_t analyze_hash_key_storage;
    return analyze_hash_key_storage;
}

/// 1 when `ANALYZE_HASH_SEED` was set but is not such an integer (the key is
/// then random; `analyze` calls it a usage error), else 0.
int analyze_hash_key_seed_malformed(void);

/// Reads `text` as Swift's `UInt64(String)` does: stores the value and
/// returns 1, or returns 0 when `text` is not one (`value` untouched).
int analyze_hash_key_parse(const char *text, uint64_t *value);

#endif
