/// Fast 64-bit hashing of byte strings (a multiply-fold mixer in the style of
/// wyhash), used for the event-id keys, the interners and action fingerprints.
///
/// Not cryptographic. Two seeds give two independent lanes; the event-id key
/// uses both (128 bits), so an accidental collision among even 10^10 distinct
/// ids has a probability below 10^-18.
///
/// Performance: one 64×64→128-bit multiply per 8 input bytes.
enum ByteHash {
    private static let p0: UInt64 = 0xa076_1d64_78bd_642f
    private static let p1: UInt64 = 0xe703_7ed1_a0b4_28db
    private static let p2: UInt64 = 0x8ebc_6af0_9c88_c6e3

    @inline(__always)
    static func mix(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let product = a.multipliedFullWidth(by: b)
        return product.high ^ product.low
    }

    static func hash(_ bytes: UnsafeRawBufferPointer, seed: UInt64 = 0) -> UInt64 {
        let n = UInt64(truncatingIfNeeded: bytes.count)
        var h = seed ^ mix(n ^ p0, p1)
        forEachWord(of: bytes) { word, isTail in h = mix(word ^ (isTail ? p2 : p1), h ^ p0) }
        return mix(h ^ p2, p1 ^ n)
    }

    /// Two independent hashes of `bytes` (as ``hash(_:seed:)`` with each seed),
    /// reading the bytes once.
    static func hashPair(_ bytes: UnsafeRawBufferPointer, seeds: (UInt64, UInt64)) -> (UInt64, UInt64) {
        let n = UInt64(truncatingIfNeeded: bytes.count)
        let lengthMix = mix(n ^ p0, p1)
        var h0 = seeds.0 ^ lengthMix, h1 = seeds.1 ^ lengthMix
        forEachWord(of: bytes) { word, isTail in
            let w = word ^ (isTail ? p2 : p1)
            h0 = mix(w, h0 ^ p0)
            h1 = mix(w, h1 ^ p0)
        }
        return (mix(h0 ^ p2, p1 ^ n), mix(h1 ^ p2, p1 ^ n))
    }

    /// Calls `body` with each 8-byte little-endian word of `bytes`, then with the
    /// remaining 1–7 bytes zero-extended (`isTail` true), if any.
    @inline(__always)
    private static func forEachWord(of bytes: UnsafeRawBufferPointer, _ body: (UInt64, Bool) -> Void) {
        guard let base = bytes.baseAddress else { return }
        let n = bytes.count
        var i = 0
        while i + 8 <= n {
            body(base.loadUnaligned(fromByteOffset: i, as: UInt64.self), false)
            i += 8
        }
        guard i < n else { return }
        if n >= 8 {
            // The last word of the buffer, shifted so that only the remaining
            // bytes stay, in order: the same value as the byte loop below.
            let remaining = n - i
            body(base.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self) >> UInt64(8 * (8 - remaining)), true)
            return
        }
        var word: UInt64 = 0
        var shift: UInt64 = 0
        while i < n {
            word |= UInt64(base.load(fromByteOffset: i, as: UInt8.self)) << shift
            shift += 8
            i += 1
        }
        body(word, true)
    }

    /// Folds `value` into a running hash (order-sensitive).
    @inline(__always)
    static func combine(_ running: UInt64, _ value: UInt64) -> UInt64 {
        mix(running ^ value ^ p0, p2)
    }
}
