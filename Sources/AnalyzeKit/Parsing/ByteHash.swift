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
        let n = bytes.count
        var h = seed ^ mix(UInt64(truncatingIfNeeded: n) ^ p0, p1)
        guard let base = bytes.baseAddress else { return mix(h ^ p2, p1) }
        var i = 0
        while i + 8 <= n {
            let word = base.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            h = mix(word ^ p1, h ^ p0)
            i += 8
        }
        if i < n {
            var word: UInt64 = 0
            var shift: UInt64 = 0
            while i < n {
                word |= UInt64(base.load(fromByteOffset: i, as: UInt8.self)) << shift
                shift += 8
                i += 1
            }
            h = mix(word ^ p2, h ^ p0)
        }
        return mix(h ^ p2, p1 ^ UInt64(truncatingIfNeeded: n))
    }

    /// Two independent hashes of `bytes` (as ``hash(_:seed:)`` with each seed),
    /// reading the bytes once.
    static func hashPair(_ bytes: UnsafeRawBufferPointer, seeds: (UInt64, UInt64)) -> (UInt64, UInt64) {
        let n = bytes.count
        let lengthMix = mix(UInt64(truncatingIfNeeded: n) ^ p0, p1)
        var h0 = seeds.0 ^ lengthMix, h1 = seeds.1 ^ lengthMix
        if let base = bytes.baseAddress {
            var i = 0
            while i + 8 <= n {
                let word = base.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                h0 = mix(word ^ p1, h0 ^ p0)
                h1 = mix(word ^ p1, h1 ^ p0)
                i += 8
            }
            if i < n {
                var word: UInt64 = 0
                var shift: UInt64 = 0
                while i < n {
                    word |= UInt64(base.load(fromByteOffset: i, as: UInt8.self)) << shift
                    shift += 8
                    i += 1
                }
                h0 = mix(word ^ p2, h0 ^ p0)
                h1 = mix(word ^ p2, h1 ^ p0)
            }
        }
        let tail = p1 ^ UInt64(truncatingIfNeeded: n)
        return (mix(h0 ^ p2, tail), mix(h1 ^ p2, tail))
    }

    /// Folds `value` into a running hash (order-sensitive).
    @inline(__always)
    static func combine(_ running: UInt64, _ value: UInt64) -> UInt64 {
        mix(running ^ value ^ p0, p2)
    }
}
