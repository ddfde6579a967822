/// Byte-range comparison for the short strings the engine compares all the
/// time (ids, keys): inlined, 8 bytes per step, no call into libc.
///
/// Performance: ranges of 8 bytes or more take ⌈n / 8⌉ word compares (the last
/// word overlaps the one before); shorter ones a byte loop of at most 7 steps.
/// `memcmp` costs a call and its size dispatch, which dominated for 36-byte ids.
enum RawBytes {
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
