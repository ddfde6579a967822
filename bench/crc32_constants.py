#!/usr/bin/env python3
"""Recomputes the folding constants of Sources/CSupport/crc32.h.

For gzip's CRC-32 (P = 0x104C11DB7, bits reflected) a fold over n bits
multiplies by x^n mod P; in the reflected domain the constant is that residue
bit-reversed over 32 bits and shifted left by one.
"""
P = 0x104C11DB7


def x_pow_mod(n):
    r = 1
    for _ in range(n):
        r <<= 1
        if r & (1 << 32):
            r ^= P
    return r


def reflect(v, bits):
    return int(format(v, f"0{bits}b")[::-1], 2)


def fold_constant(n):
    return reflect(x_pow_mod(n), 32) << 1


def barrett_mu():
    # floor(x^64 / P), as a 33-bit polynomial
    q, r = 0, 1 << 64
    for shift in range(32, -1, -1):
        if r & (1 << (shift + 32)):
            r ^= P << shift
            q |= 1 << shift
    return q


print("64 bytes: ", hex(fold_constant(4 * 128 + 32)), hex(fold_constant(4 * 128 - 32)))
print("16 bytes: ", hex(fold_constant(128 + 32)), hex(fold_constant(128 - 32)))
print("64 bits:  ", hex(fold_constant(64)))
print("P':       ", hex(reflect(P, 33)))
print("mu':      ", hex(reflect(barrett_mu(), 33)))
