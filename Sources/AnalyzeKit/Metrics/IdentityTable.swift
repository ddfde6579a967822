import CSupport
import Dispatch

/// Dense `UInt32` ids for identities (device, profile and customer user ids),
/// keyed by a 96-bit hash of their bytes.
///
/// The metrics only tell identities apart and count them; they never print
/// one. So the bytes are not kept, only their key: two distinct identities
/// would share an id only if their 96-bit keys collided (about n² / 2⁹⁷:
/// below 10⁻¹¹ for a billion distinct identities, as for event keys). Equal
/// bytes always get the same id; bytes are compared exactly in the sense
/// that matters, as `Interner` does for the strings that are printed (quiz
/// strings).
///
/// Lookup is open addressing with linear probing over a power-of-two table
/// of 8-byte slots, each holding 32 bits of the key (the tag) beside the id
/// plus one (0 = empty).
///
/// Performance: a lookup touches the slot and, when the tag matches, the
/// id's key: two likely cache misses in a large table, each of which
/// ``prefetch(_:)`` and ``prefetchKey(_:)`` can ask for ahead. Memory per
/// distinct identity: 12 (its key, for growing and merging) + 12–24 (slots
/// at ≤ 2/3 load) bytes, whatever the identity's length. (Interning the bytes
/// cost the length + 24, + 16–32 for slots at ≤ 50 % load: about 84 bytes
/// for a UUID.)
struct IdentityTable {
    /// An identity's 96-bit key (12 bytes, 4-byte aligned).
    struct Key: Equatable {
        /// The low 64 bits of the first hash, in two halves (they choose the home slot).
        private var low0: UInt32
        private var low1: UInt32
        /// The top 32 bits of the second hash: the slot tag.
        private var high: UInt32

        init(_ bytes: UnsafeRawBufferPointer) {
            let (low, high) = ByteHash.hashPair(bytes, seeds: (0xa409_3822_299f_31d0, 0x082e_fa98_ec4e_6c89))
            self.init(low: low, high: UInt32(truncatingIfNeeded: high >> 32))
        }

        private init(low: UInt64, high: UInt32) {
            (low0, low1, self.high) = (UInt32(truncatingIfNeeded: low), UInt32(truncatingIfNeeded: low >> 32), high)
        }

        /// A placeholder where no key was computed (``PendingIdentity``).
        static let zero = Key(low: 0, high: 0)

        /// The bits the home slot comes from.
        fileprivate var low: UInt64 { UInt64(low1) << 32 | UInt64(low0) }

        /// 32 bits of the key, kept in its slot.
        fileprivate var tag: UInt64 { UInt64(high) }
    }

    /// The key of each id (its handle: keys are appended one at a time, so
    /// handles are dense). Segments, not an array: growing never copies the
    /// keys so far, nor faults in pages for a copy. Segments of 1.5 MiB, above
    /// malloc's mmap threshold, so that a table freed in a merge goes back to
    /// the system at once rather than staying resident in its thread's arena.
    private var keys = SegmentedArray<Key>(shift: IdentityTable.keyShift)
    private static let keyShift = 17
    /// `tag << 32 | (id + 1)`; 0 is empty.
    private var slots: [UInt64]
    private var mask: Int
    private var prefetcher: SlotPrefetcher

    /// The most distinct identities it numbers (``RunCapacity/identities``).
    let limit: Int

    init(capacity: Int = 256, limit: Int = RunCapacity.standard.identities) {
        self.limit = limit
        var size = 16
        while size * 2 < capacity * 3 { size <<= 1 }
        slots = [UInt64](repeating: 0, count: size)
        mask = size - 1
        prefetcher = SlotPrefetcher(slots)
    }

    /// Distinct identities (also after ``releaseIndex()``).
    private(set) var count = 0

    /// Whether an identity beyond ``limit`` was met: it was not added, and
    /// its `intern` returned 0, so the ids given since are not to be used
    /// (the run stops: ``PartialAggregate/exceededLimit``).
    private(set) var isOverfull = false

    /// Starts loading the slot a lookup of `key` probes first.
    @inline(__always)
    func prefetch(_ key: Key) {
        prefetcher.prefetch(slot: Int(truncatingIfNeeded: key.low) & mask)
    }

    /// Starts loading what a lookup of `key` will read after its first slot:
    /// the key of the first slot on its probe whose tag matches (the second
    /// cache miss of a lookup), or, when the probe runs past the cache line
    /// of its first slot, the next line. Reads only slots in that line, so
    /// call it a while after ``prefetch(_:)``.
    ///
    /// Performance: at the table's load (a third to two thirds) a sixth to a
    /// third of the identities are not in their first slot; asking only for
    /// the first slot's key left each lookup of those a cache miss (`perf`
    /// put 30 % of `intern`'s samples on that key's load).
    @inline(__always)
    func prefetchKey(_ key: Key) {
        let tag = key.tag
        var slot = Int(truncatingIfNeeded: key.low) & mask
        while true {
            let entry = slots[slot]
            if entry == 0 { return }
            if entry >> 32 == tag {
                keys.prefetch(Int(truncatingIfNeeded: entry & 0xFFFF_FFFF) - 1)
                return
            }
            if prefetcher.endsCacheLine(slot: slot) {
                prefetcher.prefetch(slot: (slot + 1) & mask)
                return
            }
            slot = (slot + 1) & mask
        }
    }

    /// The id of `key`, adding it when new.
    ///
    /// Performance: inlined (a lookup is a probe, about 30 instructions when
    /// the slot and key are cached); adding a new key is a call.
    @inline(__always)
    mutating func intern(_ key: Key) -> UInt32 {
        let (slot, found) = probe(key)
        if let found { return found }
        return add(key, at: slot)
    }

    /// Adds `key`, which is not here, at the free slot `slot`; beyond
    /// ``limit``, marks the table overfull instead (``isOverfull``).
    @inline(never)
    private mutating func add(_ key: Key, at slot: Int) -> UInt32 {
        guard count < limit else {
            isOverfull = true
            return 0
        }
        let id = UInt32(truncatingIfNeeded: count)
        let handle = keys.append(key)
        assert(handle == Int(id), "identity keys are not dense")
        count += 1
        slots[slot] = key.tag << 32 | UInt64(id + 1)
        if count * 3 > slots.count * 2 { grow() }
        return id
    }

    /// The id of `key`, if it is here.
    func find(_ key: Key) -> UInt32? { probe(key).id }

    /// Where `key` is: its slot and id when it is here, else the free slot
    /// where it would go.
    @inline(__always)
    private func probe(_ key: Key) -> (slot: Int, id: UInt32?) {
        let tag = key.tag
        var slot = Int(truncatingIfNeeded: key.low) & mask
        while true {
            let entry = slots[slot]
            if entry == 0 { return (slot, nil) }
            if entry >> 32 == tag {
                let id = Int(truncatingIfNeeded: entry & 0xFFFF_FFFF) - 1
                if keys[id] == key { return (slot, UInt32(truncatingIfNeeded: id)) }
            }
            slot = (slot + 1) & mask
        }
    }

    /// Adds every identity of `other`; returns, for each of `other`'s ids, its id here.
    ///
    /// The ids are those that interning `other`'s keys in id order gives.
    /// Two stages: `other`'s keys are looked up in parts, concurrently
    /// (reading only); then those not found are added, in id order.
    ///
    /// Performance: most of a partial's identities are usually in the
    /// other partial too (about 85 % on the benchmark exports), so the
    /// second, serial stage is short. The first stage asks for the slot of
    /// the key 16 ahead and the key the slot of the key 8 ahead points at
    /// (the lookup's two cache misses), the second for the slot of the key
    /// eight ahead.
    mutating func absorb(_ other: IdentityTable) -> [UInt32] {
        let missing = UInt32.max
        var remap = [UInt32](repeating: missing, count: other.count)
        let parts = min(8, max(1, other.count >> 14))
        do {
            // Only read while the parts run (segments are shared, not copied).
            nonisolated(unsafe) let table = self, other = other
            remap.withUnsafeMutableBufferPointer { remap in
                nonisolated(unsafe) let remap = remap
                DispatchQueue.concurrentPerform(iterations: parts) { part in
                    let range = (other.count * part / parts)..<(other.count * (part + 1) / parts)
                    for id in range {
                        if id + 16 < range.upperBound { table.prefetch(other.keys[id + 16]) }
                        if id + 8 < range.upperBound { table.prefetchKey(other.keys[id + 8]) }
                        if let found = table.find(other.keys[id]) { remap[id] = found }
                    }
                }
            }
        }
        let added = remap.indices.filter { remap[$0] == missing }
        for (i, id) in added.enumerated() {
            if i + 8 < added.count { prefetch(other.keys[added[i + 8]]) }
            remap[id] = intern(other.keys[id])
        }
        return remap
    }

    /// Frees the keys and slots once every identity is interned: the ids
    /// stay valid, and ``count`` stays as it was. (An `intern` or `absorb`
    /// after this traps.)
    mutating func releaseIndex() {
        keys = SegmentedArray(shift: Self.keyShift)
        slots = []
        prefetcher = SlotPrefetcher(slots)
    }

    private mutating func grow() {
        let size = slots.count * 2
        slots = [UInt64](repeating: 0, count: size)
        prefetcher = SlotPrefetcher(slots)
        mask = size - 1
        let mask = mask
        slots.withUnsafeMutableBufferPointer { slots in
            var id = 0
            keys.forEachSegment { segment in
                for key in segment {
                    var slot = Int(truncatingIfNeeded: key.low) & mask
                    while slots[slot] != 0 { slot = (slot + 1) & mask }
                    slots[slot] = key.tag << 32 | UInt64(id + 1)
                    id += 1
                }
            }
        }
    }
}
