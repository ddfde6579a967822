import CHashKey

/// Fast 64-bit hashing of byte strings (a multiply-fold mixer in the style of
/// wyhash), used for the event-id keys, the identity keys, the interners and
/// action fingerprints.
///
/// Not cryptographic, but keyed: every lane's seed is combined with a
/// process-wide ``key`` drawn at random when the process starts, so that ids
/// written to collide (two `customer_user_id`s chosen by a user, say) cannot
/// be computed from this source. Two seeds give two independent lanes; the
/// event-id key uses both (128 bits), so an accidental collision among even
/// 10^10 distinct ids has a probability below 10^-18. No result depends on
/// the key (the determinism tests run with several).
///
/// The definition, per lane with seed `s` and key `k`, for `n` bytes: let
/// `t = s ^ k`; the state starts at `mix(t ^ p0, p1) ^ n·p0`; every 16-byte
/// block but the last is folded in as `mix(w0 ^ p1 ^ state, w1 ^ p3 ^ t)`
/// (`w0`, `w1` its two little-endian words); the last block the same way,
/// with `p2` for `p1` — the final 16 bytes when `n > 16` (overlapping the
/// block before), else the bytes themselves read as two overlapping words
/// (see ``lastBlock(_:)``); the result is `mix(state ^ p2, p1 ^ n)`. Every
/// byte is read, so for one length the blocks determine the bytes.
///
/// `mix` is symmetric (`a·b = b·a`), so the two operands of the first block
/// must not hide the key the same way: were both `w ^ t ^ constant` (the
/// state started at `t ^ n·p0` until the sixty-third session), swapping a
/// block's two words and XOR-ing in a constant of the length alone would
/// cancel `t`, and such a pair of ids (`(w0, w1)` and `(w1 ^ c, w0 ^ c)`,
/// the rest equal; printable at 329 bytes) had one hash in both lanes
/// whatever the key. The state's start is now a product of the key, which
/// no choice of words undoes without it.
///
/// A multiplication by zero erases the state. Which words give a zero
/// operand depends on the lane's seed and the key (until the forty-first
/// session the second operand was `w1 ^ p3` alone: any 16-byte id whose
/// second word was `p3`, such as every UUID ending in `a5d9-f1e7b3c59d8a`,
/// had the same key in both lanes).
///
/// Performance: one 64×64→128-bit multiply per 16 input bytes and lane (a
/// 36-byte UUID: three), plus one to start (it needs no input byte, so it
/// runs beside the first loads) and one to finish; `hashPair` reads the
/// bytes once for both lanes.
enum ByteHash {
    private static let p0: UInt64 = 0xa076_1d64_78bd_642f
    private static let p1: UInt64 = 0xe703_7ed1_a0b4_28db
    private static let p2: UInt64 = 0x8ebc_6af0_9c88_c6e3
    private static let p3: UInt64 = 0x8a9d_c5b3_e7f1_d9a5

    /// The process-wide key: `ANALYZE_HASH_SEED` (an unsigned 64-bit decimal
    /// integer, for reproducing a run's hashes) when set, else random; drawn
    /// once before `main` (CHashKey).
    ///
    /// Performance: one load. A Swift `static let` drawn on first use would
    /// call `swift_once` on every read, several times a line.
    @inline(__always)
    static var key: UInt64 { analyze_hash_key() }

    /// Whether `ANALYZE_HASH_SEED` is set but not an unsigned 64-bit decimal
    /// integer (``key`` is then random), as the one reading of it found.
    static var seedOverrideIsMalformed: Bool { analyze_hash_key_seed_malformed() != 0 }

    @inline(__always)
    static func mix(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let product = a.multipliedFullWidth(by: b)
        return product.high ^ product.low
    }

    @inline(__always)
    static func hash(_ bytes: UnsafeRawBufferPointer, seed: UInt64 = 0) -> UInt64 {
        let n = UInt64(truncatingIfNeeded: bytes.count)
        let t = seed ^ key, q = t ^ p3
        var h = mix(t ^ p0, p1) ^ (n &* p0)
        let last = forEachBlock(of: bytes) { w0, w1 in h = mix(w0 ^ p1 ^ h, w1 ^ q) }
        h = mix(last.0 ^ p2 ^ h, last.1 ^ q)
        return mix(h ^ p2, p1 ^ n)
    }

    /// Two independent hashes of `bytes` (as ``hash(_:seed:)`` with each seed),
    /// reading the bytes once.
    @inline(__always)
    static func hashPair(_ bytes: UnsafeRawBufferPointer, seeds: (UInt64, UInt64)) -> (UInt64, UInt64) {
        let n = UInt64(truncatingIfNeeded: bytes.count)
        let t0 = seeds.0 ^ key, t1 = seeds.1 ^ key
        let q0 = t0 ^ p3, q1 = t1 ^ p3
        var h0 = mix(t0 ^ p0, p1) ^ (n &* p0), h1 = mix(t1 ^ p0, p1) ^ (n &* p0)
        let last = forEachBlock(of: bytes) { w0, w1 in
            h0 = mix(w0 ^ p1 ^ h0, w1 ^ q0)
            h1 = mix(w0 ^ p1 ^ h1, w1 ^ q1)
        }
        h0 = mix(last.0 ^ p2 ^ h0, last.1 ^ q0)
        h1 = mix(last.0 ^ p2 ^ h1, last.1 ^ q1)
        return (mix(h0 ^ p2, p1 ^ n), mix(h1 ^ p2, p1 ^ n))
    }

    /// Calls `body` with the two little-endian words of each 16-byte block
    /// but the last, and returns the last block's words (see the type's
    /// definition).
    @inline(__always)
    private static func forEachBlock(
        of bytes: UnsafeRawBufferPointer, _ body: (UInt64, UInt64) -> Void
    ) -> (UInt64, UInt64) {
        guard let base = bytes.baseAddress else { return (0, 0) }
        let n = bytes.count
        guard n > 16 else { return lastBlock(bytes) }
        var i = 0
        while n &- i > 16 {
            body(base.loadUnaligned(fromByteOffset: i, as: UInt64.self),
                 base.loadUnaligned(fromByteOffset: i &+ 8, as: UInt64.self))
            i &+= 16
        }
        return (base.loadUnaligned(fromByteOffset: n &- 16, as: UInt64.self),
                base.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self))
    }

    /// The words of a string of at most 16 bytes: two 8-byte loads (the
    /// second overlapping the first) from 8 bytes up, two 4-byte loads from
    /// 4, else the first, middle and last bytes (as wyhash reads 1–3 bytes).
    @inline(__always)
    private static func lastBlock(_ bytes: UnsafeRawBufferPointer) -> (UInt64, UInt64) {
        let n = bytes.count
        guard let base = bytes.baseAddress, n > 0 else { return (0, 0) }
        if n >= 8 {
            return (base.loadUnaligned(as: UInt64.self), base.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self))
        }
        if n >= 4 {
            return (UInt64(base.loadUnaligned(as: UInt32.self)),
                    UInt64(base.loadUnaligned(fromByteOffset: n &- 4, as: UInt32.self)))
        }
        let first = UInt64(base.load(as: UInt8.self))
        let middle = UInt64(base.load(fromByteOffset: n >> 1, as: UInt8.self))
        let last = UInt64(base.load(fromByteOffset: n &- 1, as: UInt8.self))
        return (first | middle << 8 | last << 16, 0)
    }

    /// Folds `value` into a running hash (order-sensitive).
    @inline(__always)
    static func combine(_ running: UInt64, _ value: UInt64) -> UInt64 {
        mix(running ^ value ^ p0, p2)
    }
}
