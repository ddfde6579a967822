/// The generator's reusable output buffer and low-level JSON/number/time writers.
///
/// The world model (people, devices, profiles) produces compact event records; they are
/// rendered straight into this growable byte buffer — never through per-event `String`s —
/// and the buffer is handed to the caller's sink in large chunks, then reused.
/// Instants are integer nanoseconds since the Unix epoch, written as RFC 3339 in several
/// spellings or as epoch milliseconds.

/// Lookup tables: "00"…"99" and "00"…"ff" / "00"…"FF" (two bytes per entry).
struct DigitTables: @unchecked Sendable {
    let decimal: UnsafeMutablePointer<UInt8>
    let hexLower: UnsafeMutablePointer<UInt8>
    let hexUpper: UnsafeMutablePointer<UInt8>
    static let shared = DigitTables()
    private init() {
        decimal = .allocate(capacity: 200)
        hexLower = .allocate(capacity: 512)
        hexUpper = .allocate(capacity: 512)
        for i in 0..<100 {
            decimal[2 * i] = 0x30 + UInt8(i / 10)
            decimal[2 * i + 1] = 0x30 + UInt8(i % 10)
        }
        let lower = Array("0123456789abcdef".utf8), upper = Array("0123456789ABCDEF".utf8)
        for i in 0..<256 {
            hexLower[2 * i] = lower[i >> 4]; hexLower[2 * i + 1] = lower[i & 15]
            hexUpper[2 * i] = upper[i >> 4]; hexUpper[2 * i + 1] = upper[i & 15]
        }
    }
}

struct ByteBuffer {
    private(set) var base: UnsafeMutablePointer<UInt8>
    var count: Int = 0
    private(set) var capacity: Int
    private let decimal: UnsafeMutablePointer<UInt8>
    private let hexLower: UnsafeMutablePointer<UInt8>
    private let hexUpper: UnsafeMutablePointer<UInt8>
    // last civil date written (timestamps of neighbouring events share their day)
    private var cachedDays = Int64.min
    private var cachedYear = 0, cachedMonth = 0, cachedDay = 0

    init(capacity: Int) {
        self.capacity = max(capacity, 64)
        base = UnsafeMutablePointer<UInt8>.allocate(capacity: self.capacity)
        let t = DigitTables.shared
        decimal = t.decimal
        hexLower = t.hexLower
        hexUpper = t.hexUpper
    }

    /// Must be called exactly once by the owner.
    func release() { base.deallocate() }

    @inline(__always) mutating func reserve(_ n: Int) {
        if count + n > capacity { grow(count + n) }
    }

    @inline(never) mutating func grow(_ needed: Int) {
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.update(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    func bytes(from start: Int, to end: Int) -> [UInt8] {
        Array(UnsafeBufferPointer(start: base + start, count: end - start))
    }

    /// Drops bytes before `start`, moving the rest to the front.
    mutating func keepTail(from start: Int) {
        let n = count - start
        if n > 0 && start > 0 { (base).update(from: base + start, count: n) }
        count = max(n, 0)
    }

    @inline(__always) mutating func byte(_ b: UInt8) {
        reserve(1)
        base[count] = b
        count += 1
    }

    @inline(__always) mutating func byte2(_ a: UInt8, _ b: UInt8) {
        reserve(2)
        base[count] = a
        base[count + 1] = b
        count += 2
    }

    @inline(__always) mutating func append(_ s: StaticString) {
        let n = s.utf8CodeUnitCount
        reserve(n)
        (base + count).update(from: s.utf8Start, count: n)
        count += n
    }

    @inline(__always) mutating func append(_ a: [UInt8]) {
        let n = a.count
        reserve(n)
        a.withUnsafeBufferPointer { p in
            if let src = p.baseAddress { (base + count).update(from: src, count: n) }
        }
        count += n
    }

    @inline(__always) mutating func append(_ p: UnsafePointer<UInt8>, _ n: Int) {
        reserve(n)
        (base + count).update(from: p, count: n)
        count += n
    }

    /// Appends a copy of bytes already in the buffer.
    mutating func duplicate(from start: Int, to end: Int) {
        let n = end - start
        reserve(n)
        (base + count).update(from: base + start, count: n)
        count += n
    }

    // MARK: numbers

    mutating func uint(_ v: UInt64) {
        if v < 10 { byte(0x30 &+ UInt8(v)); return }
        var digits = 0
        var x = v
        while x > 0 { digits += 1; x /= 10 }
        reserve(digits)
        var i = count + digits - 1
        x = v
        while x > 0 {
            base[i] = 0x30 &+ UInt8(x % 10)
            x /= 10
            i -= 1
        }
        count += digits
    }

    mutating func int(_ v: Int64) {
        if v < 0 {
            byte(0x2D)
            uint(v.magnitude)
        } else {
            uint(UInt64(v))
        }
    }

    // MARK: hex / ids

    @inline(__always) mutating func hex(_ v: UInt64, digits: Int, upper: Bool) {
        reserve(digits)
        let table: StaticString = upper ? "0123456789ABCDEF" : "0123456789abcdef"
        let t = table.utf8Start
        var x = v
        var i = count + digits - 1
        while i >= count {
            base[i] = t[Int(x & 0xF)]
            x >>= 4
            i -= 1
        }
        count += digits
    }

    /// 8-4-4-4-12 UUID text (version 4, RFC 4122 variant) from 128 random bits.
    mutating func uuid(_ hi: UInt64, _ lo: UInt64, upper: Bool) {
        let h = (hi & ~0xF000) | 0x4000
        let l = (lo & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        reserve(36)
        let t = upper ? hexUpper : hexLower
        let p = base + count
        @inline(__always) func put(_ v: UInt64, _ shift: UInt64, _ at: Int) {
            let src = t + 2 * Int((v >> shift) & 0xFF)
            p[at] = src[0]
            p[at + 1] = src[1]
        }
        put(h, 56, 0); put(h, 48, 2); put(h, 40, 4); put(h, 32, 6)
        p[8] = 0x2D
        put(h, 24, 9); put(h, 16, 11)
        p[13] = 0x2D
        put(h, 8, 14); put(h, 0, 16)
        p[18] = 0x2D
        put(l, 56, 19); put(l, 48, 21)
        p[23] = 0x2D
        put(l, 40, 24); put(l, 32, 26); put(l, 24, 28); put(l, 16, 30); put(l, 8, 32); put(l, 0, 34)
        count += 36
    }

    // MARK: time

    /// RFC 3339 timestamp (without quotes).
    /// zone: 0 `Z`, 1 `z`, 2 `+00:00`, 3 `-00:00`, 4 numeric `offsetMinutes`.
    mutating func rfc3339(ns: Int64, zone: UInt8, offsetMinutes: Int, lowerT: Bool, fractionDigits: Int) {
        let offset = zone == 4 ? offsetMinutes : 0
        let local = ns + Int64(offset) * 60_000_000_000
        var secs = local / 1_000_000_000
        var frac = Int(local % 1_000_000_000)
        if frac < 0 { frac += 1_000_000_000; secs -= 1 }
        var days = secs / 86_400
        var sod = Int(secs % 86_400)
        if sod < 0 { sod += 86_400; days -= 1 }
        if days != cachedDays {
            let (y, m, d) = civilFromDays(days)
            cachedDays = days
            cachedYear = Int(y); cachedMonth = m; cachedDay = d
        }
        reserve(40)
        var p = base + count
        let dec = decimal
        @inline(__always) func put2(_ v: Int, _ at: Int) {
            let src = dec + 2 * v
            p[at] = src[0]
            p[at + 1] = src[1]
        }
        if cachedYear >= 0 && cachedYear <= 9999 {
            put2(cachedYear / 100, 0)
            put2(cachedYear % 100, 2)
            p += 4
        } else {
            int(Int64(cachedYear))  // outside RFC 3339; only for absurd windows
            reserve(40)
            p = base + count
        }
        p[0] = 0x2D
        put2(cachedMonth, 1)
        p[3] = 0x2D
        put2(cachedDay, 4)
        p[6] = lowerT ? 0x74 : 0x54
        put2(sod / 3600, 7)
        p[9] = 0x3A
        put2((sod / 60) % 60, 10)
        p[12] = 0x3A
        put2(sod % 60, 13)
        var i = 15
        if fractionDigits > 0 {
            p[15] = 0x2E
            var f = frac
            var k = 9
            while k > fractionDigits { f /= 10; k -= 1 }
            var j = 15 + fractionDigits
            while j > 15 {
                p[j] = 0x30 &+ UInt8(truncatingIfNeeded: f % 10)
                f /= 10
                j -= 1
            }
            i = 16 + fractionDigits
        }
        switch zone {
        case 0: p[i] = 0x5A; i += 1
        case 1: p[i] = 0x7A; i += 1
        case 2, 3:
            p[i] = zone == 2 ? 0x2B : 0x2D
            p[i + 1] = 0x30; p[i + 2] = 0x30; p[i + 3] = 0x3A; p[i + 4] = 0x30; p[i + 5] = 0x30
            i += 6
        default:
            p[i] = offset < 0 ? 0x2D : 0x2B
            let a = abs(offset)
            put2(a / 60 % 100, i + 1)
            p[i + 3] = 0x3A
            put2(a % 60, i + 4)
            i += 6
        }
        count = (p + i) - base
    }
}

// MARK: - calendar

@inline(__always) func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
    let q = a / b
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
}

/// Days since 1970-01-01 → (year, month, day), proleptic Gregorian (H. Hinnant).
@inline(__always) func civilFromDays(_ z0: Int64) -> (Int64, Int, Int) {
    let z = z0 + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let doe = z - era * 146_097
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
    let y = yoe + era * 400
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let d = Int(doy - (153 * mp + 2) / 5 + 1)
    let m = Int(mp < 10 ? mp + 3 : mp - 9)
    return (m <= 2 ? y + 1 : y, m, d)
}

/// (year, month, day) → days since 1970-01-01.
func daysFromCivil(_ y0: Int64, _ m: Int, _ d: Int) -> Int64 {
    let y = m <= 2 ? y0 - 1 : y0
    let era = (y >= 0 ? y : y - 399) / 400
    let yoe = y - era * 400
    let mm = Int64(m)
    let doy = (153 * (mm > 2 ? mm - 3 : mm + 9) + 2) / 5 + Int64(d) - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    return era * 146_097 + doe - 719_468
}

/// Parses `YYYY-MM-DD` (a real calendar date) into days since the epoch.
func parseISODate(_ s: String) -> Int64? {
    let b = Array(s.utf8)
    guard b.count == 10, b[4] == 0x2D, b[7] == 0x2D else { return nil }
    func num(_ r: Range<Int>) -> Int? {
        var v = 0
        for i in r {
            guard b[i] >= 0x30 && b[i] <= 0x39 else { return nil }
            v = v * 10 + Int(b[i] - 0x30)
        }
        return v
    }
    guard let y = num(0..<4), let m = num(5..<7), let d = num(8..<10),
          y >= 1, m >= 1, m <= 12, d >= 1 else { return nil }
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
    let lengths = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    guard d <= lengths[m - 1] else { return nil }
    return daysFromCivil(Int64(y), m, d)
}

/// Number of fraction digits needed to write `ns` without loss (0...9).
@inline(__always) func neededFractionDigits(_ ns: Int64) -> Int {
    var r = Int(((ns % 1_000_000_000) + 1_000_000_000) % 1_000_000_000)
    if r == 0 { return 0 }
    var digits = 9
    while r % 10 == 0 { r /= 10; digits -= 1 }
    return digits
}

// MARK: - JSON string escaping (slow path, for the catalog and noise lines)

/// JSON string contents (no quotes). `asciiOnly` escapes every non-ASCII scalar as
/// `\uXXXX` (surrogate pairs above U+FFFF) and `/` as `\/` — same text after decoding.
func jsonEscaped(_ s: String, asciiOnly: Bool) -> [UInt8] {
    let utf8 = Array(s.utf8)
    if !utf8.contains(where: { $0 < 0x20 || $0 >= 0x80 || $0 == 0x22 || $0 == 0x5C || $0 == 0x2F }) {
        return utf8  // nothing to escape in either spelling
    }
    var out: [UInt8] = []
    out.reserveCapacity(s.utf8.count + 8)
    func u4(_ v: UInt32) {
        let hexd: [UInt8] = Array("0123456789abcdef".utf8)
        out.append(0x5C); out.append(0x75)
        out.append(hexd[Int((v >> 12) & 0xF)]); out.append(hexd[Int((v >> 8) & 0xF)])
        out.append(hexd[Int((v >> 4) & 0xF)]); out.append(hexd[Int(v & 0xF)])
    }
    for u in s.unicodeScalars {
        let v = u.value
        switch v {
        case 0x22: out.append(0x5C); out.append(0x22)
        case 0x5C: out.append(0x5C); out.append(0x5C)
        case 0x0A: out.append(0x5C); out.append(0x6E)
        case 0x0D: out.append(0x5C); out.append(0x72)
        case 0x09: out.append(0x5C); out.append(0x74)
        case 0x08: out.append(0x5C); out.append(0x62)
        case 0x0C: out.append(0x5C); out.append(0x66)
        case 0..<0x20: u4(v)
        case 0x2F where asciiOnly: out.append(0x5C); out.append(0x2F)
        case 0x80...:
            if asciiOnly {
                if v > 0xFFFF {
                    let w = v - 0x10000
                    u4(0xD800 + (w >> 10))
                    u4(0xDC00 + (w & 0x3FF))
                } else {
                    u4(v)
                }
            } else {
                out += Array(String(u).utf8)
            }
        default: out.append(UInt8(v))
        }
    }
    return out
}
