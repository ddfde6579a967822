/// Gives each distinct byte string a dense `UInt32` id, comparing bytes
/// exactly (never `String ==`, which would merge NFC and NFD spellings).
///
/// Storage is one contiguous byte arena holding, per string, an 8-byte header
/// (its id and length) followed by its bytes. Lookup is open addressing with
/// linear probing over a power-of-two table of 8-byte slots, each holding 24
/// bits of the string's hash beside the arena offset of its header (0 = empty).
///
/// Performance: O(1) expected per `intern`. A lookup of a string seen before
/// touches two places that are likely cache misses in a large table — its slot,
/// and its header with the bytes right after — and compares bytes only when the
/// 24 hash bits match. Memory per distinct string: its length + 8 (header) +
/// 8 (offset) + 8 (hash, for growing) + 16–32 (slots at ≤ 50 % load) bytes.
struct Interner {
    /// Header (id: UInt32, length: UInt32, little-endian) + bytes, per string.
    private var storage: [UInt8] = []
    /// The header offset of each id.
    private var offsets: [Int] = []
    private var hashes: [UInt64] = []
    /// `tag << 40 | (header offset + 1)`; 0 is empty.
    private var slots: [UInt64]
    private var mask: Int
    private var prefetcher: SlotPrefetcher

    private static let headerSize = 8
    private static let offsetBits: UInt64 = 40

    /// The most distinct strings it numbers (ids are 32 bits;
    /// ``RunCapacity/quizStrings``).
    let limit: Int

    /// Whether a string beyond ``limit`` was met: it was not added, and its
    /// `intern` returned 0, so the ids given since are not to be used (the
    /// run stops: ``PartialAggregate/exceededLimit``).
    private(set) var isOverfull = false

    init(capacity: Int = 1024, limit: Int = RunCapacity.standard.quizStrings) {
        self.limit = limit
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        slots = [UInt64](repeating: 0, count: size)
        mask = size - 1
        prefetcher = SlotPrefetcher(slots)
    }

    var count: Int { offsets.count }

    /// Frees what only lookups and growth use (slots and hashes) once every
    /// string is interned; ids and bytes stay readable. (An `intern` after
    /// this traps.)
    mutating func releaseIndex() {
        slots = []
        hashes = []
        prefetcher = SlotPrefetcher(slots)
    }

    /// The hash `intern(_:hash:)` expects for `bytes`.
    @inline(__always)
    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 { ByteHash.hash(bytes, seed: 0x1d) }

    /// The id of `bytes`, adding it when new.
    mutating func intern(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        intern(bytes, hash: Self.hash(bytes))
    }

    /// Starts loading the slot a lookup of a string with `hash` probes first.
    @inline(__always)
    func prefetch(hash: UInt64) {
        prefetcher.prefetch(slot: Int(truncatingIfNeeded: hash) & mask)
    }

    /// The id of `bytes`, whose ``hash(_:)`` is `hash` (computed ahead, so the
    /// slot could be prefetched), adding it when new.
    mutating func intern(_ bytes: UnsafeRawBufferPointer, hash: UInt64) -> UInt32 {
        let tag = hash >> Self.offsetBits
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let entry = slots[slot]
            if entry == 0 { break }
            if entry >> Self.offsetBits == tag {
                let header = Int(truncatingIfNeeded: entry & (1 << Self.offsetBits - 1)) - 1
                if let id = idIfEqual(header, bytes) { return id }
            }
            slot = (slot + 1) & mask
        }
        guard offsets.count < limit else {
            isOverfull = true
            return 0
        }
        let id = UInt32(offsets.count)
        let header = storage.count
        precondition(header < 1 << Self.offsetBits - 1, "interned strings exceed 1 TiB")
        withUnsafeBytes(of: (UInt64(id) | UInt64(bytes.count) << 32).littleEndian) { storage.append(contentsOf: $0) }
        storage.append(contentsOf: bytes)
        offsets.append(header)
        hashes.append(hash)
        slots[slot] = tag << Self.offsetBits | UInt64(header + 1)
        if offsets.count * 2 > slots.count { grow() }
        return id
    }

    /// Calls `body` with the bytes of `id`.
    func withBytes<R>(_ id: UInt32, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        let header = offsets[Int(id)]
        return storage.withUnsafeBytes { raw in
            let length = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: header + 4, as: UInt32.self)))
            let start = header + Self.headerSize
            return body(UnsafeRawBufferPointer(rebasing: raw[start..<(start + length)]))
        }
    }

    /// Adds every string of `other`; returns, for each of `other`'s ids, its id here.
    ///
    /// Performance: `other`'s stored hashes are reused, and the slot of the
    /// string eight ahead is prefetched while one is interned.
    mutating func absorb(_ other: Interner) -> [UInt32] {
        var remap = [UInt32](repeating: 0, count: other.count)
        for id in 0..<other.count {
            if id + 8 < other.count { prefetch(hash: other.hashes[id + 8]) }
            remap[id] = other.withBytes(UInt32(id)) { intern($0, hash: other.hashes[id]) }
        }
        return remap
    }

    /// The id stored at `header` when its bytes equal `bytes`.
    @inline(__always)
    private func idIfEqual(_ header: Int, _ bytes: UnsafeRawBufferPointer) -> UInt32? {
        storage.withUnsafeBytes { raw in
            let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: header, as: UInt64.self))
            guard Int(word >> 32) == bytes.count else { return nil }
            guard bytes.count == 0
                    || RawBytes.equal(raw.baseAddress! + header + Self.headerSize, bytes.baseAddress!, count: bytes.count)
            else { return nil }
            return UInt32(truncatingIfNeeded: word)
        }
    }

    private mutating func grow() {
        let size = slots.count * 2
        slots = [UInt64](repeating: 0, count: size)
        prefetcher = SlotPrefetcher(slots)
        mask = size - 1
        for (id, hash) in hashes.enumerated() {
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = (hash >> Self.offsetBits) << Self.offsetBits | UInt64(offsets[id] + 1)
        }
    }
}
