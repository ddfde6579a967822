/// Gives each distinct byte string a dense `UInt32` id, comparing bytes
/// exactly (never `String ==`, which would merge NFC and NFD spellings).
///
/// Storage is one contiguous byte arena plus an offset and a hash per string;
/// lookup is open addressing with linear probing over a power-of-two slot
/// table that stores `id + 1` (0 = empty), comparing stored hashes before bytes.
///
/// Performance: O(1) expected per `intern`; memory per distinct string is its
/// length + 8 (offset) + 8 (hash) + ~8 (slots at ≤ 50 % load) bytes.
struct Interner {
    private(set) var storage: [UInt8] = []
    private var offsets: [Int] = [0]
    private var hashes: [UInt64] = []
    private var slots: [UInt32]
    private var mask: Int

    init(capacity: Int = 1024) {
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        slots = [UInt32](repeating: 0, count: size)
        mask = size - 1
    }

    var count: Int { hashes.count }

    /// The id of `bytes`, adding it when new.
    mutating func intern(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        let hash = ByteHash.hash(bytes, seed: 0x1d)
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let entry = slots[slot]
            if entry == 0 { break }
            let id = Int(entry - 1)
            if hashes[id] == hash && equals(id, bytes) { return UInt32(id) }
            slot = (slot + 1) & mask
        }
        let id = hashes.count
        hashes.append(hash)
        storage.append(contentsOf: bytes)
        offsets.append(storage.count)
        slots[slot] = UInt32(id + 1)
        if hashes.count * 2 > slots.count { grow() }
        return UInt32(id)
    }

    /// The id of `bytes`, trying `hint` (an id of this interner, typically the
    /// previous event's) before hashing: consecutive events of one user share
    /// their ids, and one comparison is cheaper than a hash and a probe.
    @inline(__always)
    mutating func intern(_ bytes: UnsafeRawBufferPointer, hint: UInt32) -> UInt32 {
        if Int(hint) < hashes.count && equals(Int(hint), bytes) { return hint }
        return intern(bytes)
    }

    /// Calls `body` with the bytes of `id`.
    func withBytes<R>(_ id: UInt32, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        let start = offsets[Int(id)], end = offsets[Int(id) + 1]
        return storage.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[start..<end])) }
    }

    /// The bytes of `id` as a new array.
    func bytes(_ id: UInt32) -> [UInt8] { withBytes(id) { Array($0) } }

    /// The string of `id` (for output; ids are valid UTF-8).
    func string(_ id: UInt32) -> String { withBytes(id) { String(decoding: $0, as: UTF8.self) } }

    /// Adds every string of `other`; returns, for each of `other`'s ids, its id here.
    mutating func absorb(_ other: Interner) -> [UInt32] {
        var remap = [UInt32](repeating: 0, count: other.count)
        other.storage.withUnsafeBytes { raw in
            for id in 0..<other.count {
                let range = other.offsets[id]..<other.offsets[id + 1]
                remap[id] = intern(UnsafeRawBufferPointer(rebasing: raw[range]))
            }
        }
        return remap
    }

    private func equals(_ id: Int, _ bytes: UnsafeRawBufferPointer) -> Bool {
        let start = offsets[id], end = offsets[id + 1]
        guard end - start == bytes.count else { return false }
        return storage.withUnsafeBytes { raw in
            bytes.count == 0 || RawBytes.equal(raw.baseAddress! + start, bytes.baseAddress!, count: bytes.count)
        }
    }

    private mutating func grow() {
        let size = slots.count * 2
        slots = [UInt32](repeating: 0, count: size)
        mask = size - 1
        for (id, hash) in hashes.enumerated() {
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = UInt32(id + 1)
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
