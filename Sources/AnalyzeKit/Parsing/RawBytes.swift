#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Byte-range comparison: equality for the short strings the engine compares
/// all the time (ids, keys), inlined, 8 bytes per step, no call into libc;
/// byte order for the rarer comparisons of ids at equal instants.
///
/// Performance of ``equal(_:_:count:)``: ranges of 8 bytes or more take
/// ⌈n / 8⌉ word compares (the last word overlaps the one before); shorter ones
/// a byte loop of at most 7 steps. `memcmp` costs a call and its size
/// dispatch, which dominated for 36-byte ids.
enum RawBytes {
    /// Whether `a` precedes `b` in byte order (a proper prefix first): the
    /// SPEC's order of `event_id`s at equal instants.
    ///
    /// Performance: `memcmp`, whose call is nothing beside the long ids where
    /// order matters most (ties of instant are rare, and ids written to tie
    /// can be as long as a line); `lexicographicallyPrecedes` over raw bytes
    /// took a byte per step with the iterator's checks.
    static func precedes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        compare(a, b) < 0
    }

    /// `a` against `b` in byte order (a proper prefix first): negative when
    /// `a` comes first, 0 when they are equal, positive when `b` does.
    static func compare(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        let common = min(a.count, b.count)
        if common > 0 {
            let order = memcmp(a.baseAddress!, b.baseAddress!, common)
            if order != 0 { return Int(order) }
        }
        return a.count - b.count
    }

    @inline(__always)
    static func equal(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, count n: Int) -> Bool {
        if n >= 8 {
            var i = 0
            while i + 8 < n {
                if a.loadUnaligned(fromByteOffset: i, as: UInt64.self) != b.loadUnaligned(fromByteOffset: i, as: UInt64.self) {
                    return false
                }
                i += 8
            }
            return a.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self) == b.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
        }
        var i = 0
        while i < n {
            if a.load(fromByteOffset: i, as: UInt8.self) != b.load(fromByteOffset: i, as: UInt8.self) { return false }
            i += 1
        }
        return true
    }
}
