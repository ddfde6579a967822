/// Deterministic randomness for the synthetic world.
///
/// Every random choice in the generator — who installs when, which answer a person picks,
/// how a line is spelled, which noise is injected — comes from one of these generators,
/// seeded from `GeneratorConfiguration.seed`. Each person gets an independent stream
/// (seed mixed with the person's index), so a person's life does not depend on how it
/// interleaves with others; the emitter has its own stream for styles and noise.
/// Only IEEE basic arithmetic is used (no libm), so the bytes do not depend on the
/// platform's math library.

/// SplitMix64: used to expand a 64-bit seed into xoshiro state, and by tests
/// that need reproducible shuffles.
public struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    public init(_ seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// xoshiro256** 1.0.
struct Rng {
    var s0: UInt64, s1: UInt64, s2: UInt64, s3: UInt64

    init(seed: UInt64) {
        var sm = SplitMix64(seed)
        s0 = sm.next(); s1 = sm.next(); s2 = sm.next(); s3 = sm.next()
    }

    /// An independent stream `stream` derived from `seed`.
    init(seed: UInt64, stream: UInt64) {
        var sm = SplitMix64(seed ^ 0x6A09_E667_F3BC_C908)
        let a = sm.next()
        var sm2 = SplitMix64(a &+ stream &* 0xD1B5_4A32_D192_ED03)
        _ = sm2.next()
        self.init(seed: sm2.next() ^ stream)
    }

    @inline(__always) static func rotl(_ x: UInt64, _ k: UInt64) -> UInt64 {
        (x << k) | (x >> (64 &- k))
    }

    @inline(__always) mutating func next() -> UInt64 {
        let result = Rng.rotl(s1 &* 5, 7) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = Rng.rotl(s3, 45)
        return result
    }

    /// Uniform in 0..<n (n > 0).
    @inline(__always) mutating func below(_ n: Int) -> Int {
        Int(truncatingIfNeeded: next().multipliedFullWidth(by: UInt64(n)).high)
    }

    /// Uniform in lo...hi.
    @inline(__always) mutating func between(_ lo: Int, _ hi: Int) -> Int {
        lo + below(hi - lo + 1)
    }

    /// Uniform in [0, 1).
    @inline(__always) mutating func unit() -> Double {
        Double(next() >> 11) * 0x1p-53
    }

    @inline(__always) mutating func chance(_ p: Double) -> Bool {
        unit() < p
    }

    /// Exponentially distributed with the given mean.
    mutating func exponential(_ mean: Double) -> Double {
        -deterministicLog(1.0 - unit()) * mean
    }

    /// Index drawn with probability proportional to `weights[i]`.
    mutating func weighted(_ weights: [Int], total: Int) -> Int {
        var r = below(total)
        for (i, w) in weights.enumerated() {
            if r < w { return i }
            r -= w
        }
        return weights.count - 1
    }
}

/// Natural logarithm from basic IEEE operations only (bit-exact on every platform).
func deterministicLog(_ x: Double) -> Double {
    precondition(x > 0)
    let e = Double(Int(x.exponent))
    let m = x.significand  // [1, 2)
    let z = (m - 1) / (m + 1)  // [0, 1/3)
    let z2 = z * z
    var term = z
    var sum = 0.0
    var k = 1.0
    while k < 44 {
        sum += term / k
        term *= z2
        k += 2
    }
    return 2 * sum + e * 0.693_147_180_559_945_3
}
