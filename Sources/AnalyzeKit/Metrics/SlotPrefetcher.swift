import CSupport

/// A prefetch hint for an open-addressing table of 8-byte slots: remembers
/// where the slot array was last stored, so asking for slot `i` reads no array
/// (and retains none).
///
/// Only a hint: a stale address — after the table was reallocated, or when a
/// copy of its owner reallocated its own — costs a useless prefetch, never a
/// wrong result, and a prefetch never faults. Owners refresh it whenever they
/// assign a new slot array.
struct SlotPrefetcher {
    private var address: UInt

    init(_ slots: [UInt64]) {
        address = slots.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
    }

    /// Whether `slot` is the last in its 64-byte cache line, by the remembered
    /// address (a stale one only makes a probe hint stop early or late).
    @inline(__always)
    func endsCacheLine(slot: Int) -> Bool {
        (address &+ UInt(slot) &* 8) & 63 == 56
    }

    @inline(__always)
    func prefetch(slot: Int) {
        analyze_prefetch(UnsafeRawPointer(bitPattern: address &+ UInt(slot) &* 8))
    }
}
