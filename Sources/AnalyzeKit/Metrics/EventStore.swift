/// The identity of an event for de-duplication: two independent 64-bit
/// hashes of its `event_id` bytes (see ``ByteHash``).
struct EventKey: Hashable {
    var low: UInt64
    var high: UInt64

    init(_ eventID: UnsafeRawBufferPointer) {
        (low, high) = ByteHash.hashPair(eventID, seeds: (0x243f_6a88_85a3_08d3, 0x1319_8a2e_0370_7344))
    }
}

/// One accepted event, reduced to what the metrics read (64 bytes).
///
/// Identities are ids of the partial's ``Interner`` plus one (0 = none).
/// Identity events and quiz answers also have an ``EventExtra`` (their
/// `event_id` bytes, for ordering ties, and their answer).
struct EventRecord {
    var key: EventKey
    /// Input order: chunk sequence << 32 | line index in the chunk.
    var position: UInt64
    var seconds: Int64
    var fingerprint: UInt64
    var nanoseconds: UInt32
    /// Index into `PartialAggregate.extras`, or -1.
    var extra: Int32
    var device: UInt32
    var profile: UInt32
    var customerUser: UInt32
    var type: EventType

    var instant: Instant { Instant(seconds: seconds, nanoseconds: nanoseconds) }

    /// The position of a record that a merge found to be a later copy of a
    /// kept one: it stays where it is (records are never moved) and every
    /// scan skips it.
    static let removedPosition = UInt64.max

    var isRemoved: Bool { position == Self.removedPosition }

    /// Whether a dropped duplicate differs from the kept one in anything the
    /// metrics read (SPEC §2, conflicting duplicates).
    func hasSameContent(as other: EventRecord) -> Bool {
        type == other.type && seconds == other.seconds && nanoseconds == other.nanoseconds
            && device == other.device && profile == other.profile && customerUser == other.customerUser
            && fingerprint == other.fingerprint
    }
}

/// What only identity events and quiz answers carry: where their `event_id`
/// bytes are (ordering ties) and their answer, if any.
struct EventExtra {
    /// The handle of the id's bytes in `PartialAggregate.eventIDs`.
    var idOffset: Int
    /// How many bytes the id has there, or (negative) how its 16 packed
    /// bytes are written as text (``packedLowercaseUUID``, ``packedUppercaseUUID``).
    var idCount: Int32
    /// Handle into `PartialAggregate.answers`, or -1.
    var answer: Int32

    static let packedLowercaseUUID: Int32 = -1
    static let packedUppercaseUUID: Int32 = -2

    /// An extra whose id was packed, written in `letterCase`.
    init(packedIDAt idOffset: Int, case letterCase: PackedUUID.Case, answer: Int32) {
        self.init(idOffset: idOffset,
                  idCount: letterCase == .lower ? Self.packedLowercaseUUID : Self.packedUppercaseUUID, answer: answer)
    }

    init(idOffset: Int, idCount: Int32, answer: Int32) {
        (self.idOffset, self.idCount, self.answer) = (idOffset, idCount, answer)
    }

    /// How the packed id is written, or nil when the id is stored as it was.
    var packedCase: PackedUUID.Case? {
        switch idCount {
        case Self.packedLowercaseUUID: .lower
        case Self.packedUppercaseUUID: .upper
        default: nil
        }
    }
}

/// Accepted events keyed by `event_id`: the first in input order is kept,
/// later copies are set aside as duplicates.
///
/// Keeping the minimum position per key makes inserts order-independent, so
/// stores merge associatively and commutatively. The store is split into
/// ``shardCount`` shards by key hash: two stores merge shard by shard, in
/// parallel, and each source shard is freed as soon as it is merged, so the
/// merge's extra memory is one shard's worth, not a whole store's.
struct EventStore {
    static let shardCount = 16
    private(set) var shards = [EventShard](repeating: EventShard(), count: shardCount)

    @inline(__always)
    private static func shard(_ key: EventKey) -> Int { Int(truncatingIfNeeded: key.high >> 60) }

    mutating func insert(_ record: EventRecord) {
        shards[Self.shard(record.key)].insert(record)
    }

    /// Starts loading the index slot `key` will probe, so that an ``insert(_:)``
    /// issued a little later (after the rest of the event is prepared) does not
    /// wait for memory.
    @inline(__always)
    func prefetch(_ key: EventKey) {
        shards[Self.shard(key)].prefetch(key)
    }

    /// The kept record for `key`.
    func kept(_ key: EventKey) -> EventRecord? { shards[Self.shard(key)].kept(key) }

    /// Kept events.
    var count: Int { shards.reduce(0) { $0 + $1.count } }

    /// Calls `body` with every kept record, shard by shard, at memory speed
    /// (see ``SegmentedArray/forEachSegment(_:)``).
    @inline(__always)
    func forEachRecord(_ body: (borrowing EventRecord) -> Void) {
        forEachSegment { segment in
            for index in segment.indices where !segment[index].isRemoved { body(segment[index]) }
        }
    }

    /// Calls `body` with each record segment, shard by shard; segments hold
    /// removed records too (``EventRecord/isRemoved``). For scans that look
    /// ahead.
    func forEachSegment(_ body: (UnsafeBufferPointer<EventRecord>) -> Void) {
        for shard in shards { shard.records.forEachSegment(body) }
    }

    /// Frees the shards' key indexes once no lookup or insert will come: the
    /// metric tables only scan records. (An insert or ``kept(_:)`` after this
    /// traps.) 12–24 bytes per event that the tables' own memory can reuse.
    mutating func releaseIndexes() {
        for i in shards.indices { shards[i].releaseIndex() }
    }

    /// Every dropped duplicate, shard by shard.
    var dropped: FlattenSequence<LazyMapSequence<[EventShard], [EventRecord]>> {
        shards.lazy.map(\.dropped).joined()
    }

    /// Takes every record of `other` in, mapping each through `remap`; the
    /// shards run concurrently, and records are not copied (see
    /// ``EventShard/absorb(_:_:)``).
    mutating func absorb(_ other: consuming EventStore, _ remap: @escaping @Sendable (EventRecord) -> EventRecord) {
        var source = other
        shards.withUnsafeMutableBufferPointer { target in
            source.shards.withUnsafeMutableBufferPointer { from in
                nonisolated(unsafe) let target = target
                nonisolated(unsafe) let from = from
                DispatchQueue.concurrentPerform(iterations: Self.shardCount) { i in
                    // Taken out first, so its segments are uniquely owned and
                    // are mapped in place, not copied.
                    var shard = EventShard()
                    swap(&shard, &from[i])
                    target[i].absorb(consume shard, remap)
                }
            }
        }
    }
}

/// One shard of an ``EventStore``: accepted events keyed by `event_id`,
/// the first in input order kept, later copies set aside as duplicates.
///
/// Performance: open addressing (linear probing, ≤ 2/3 load) over 8-byte
/// slots that hold 32 bits of the key (the tag) beside the record index, so a
/// probe touches the record only when the tags match — one cache miss per new
/// event. A key's home slot is taken from its tag too, so growing rehashes
/// the slots alone, without reading a record. 12–24 bytes of index per event;
/// records are appended to a ``SegmentedArray`` (1 MiB segments of 16 384
/// records), which never copies them as it grows or merges.
struct EventShard {
    typealias Handle = SegmentedArray<EventRecord>.Handle

    /// Kept records, and (after a merge) removed ones that every scan skips.
    private(set) var records = SegmentedArray<EventRecord>()
    /// Kept records.
    private(set) var count = 0
    /// Every copy that lost to an earlier one (needed to count conflicts
    /// against whichever copy is finally kept).
    private(set) var dropped: [EventRecord] = []
    /// `tag << 32 | (record handle + 1)`; 0 is empty.
    private var slots = [UInt64](repeating: 0, count: 1 << 8)
    private var mask = (1 << 8) - 1
    private var prefetcher: SlotPrefetcher

    init() { prefetcher = SlotPrefetcher(slots) }

    /// 32 bits of the key. (The top 4 chose the shard: the home slot uses the
    /// low bits, see ``home(_:)``.)
    @inline(__always)
    private static func tag(_ key: EventKey) -> UInt64 { key.high >> 32 }

    /// The slot entry for a record: its tag beside its handle plus one.
    @inline(__always)
    private static func slot(tag: UInt64, handle: Handle) -> UInt64 {
        precondition(handle < Int(UInt32.max), "too many records in one shard")
        return tag << 32 | UInt64(handle + 1)
    }

    /// The slot where a key with `tag` starts probing.
    @inline(__always)
    private func home(_ tag: UInt64) -> Int { Int(truncatingIfNeeded: tag) & mask }

    /// Where `key` is: the handle of its record when indexed, else the free
    /// slot where it would go.
    @inline(__always)
    private func probe(_ key: EventKey) -> (slot: Int, kept: Handle?) {
        let tag = Self.tag(key)
        var slot = home(tag)
        while true {
            let entry = slots[slot]
            if entry == 0 { return (slot, nil) }
            let handle = Int(truncatingIfNeeded: entry & 0xFFFF_FFFF) - 1
            if entry >> 32 == tag && records[handle].key == key { return (slot, handle) }
            slot = (slot + 1) & mask
        }
    }

    mutating func insert(_ record: EventRecord) {
        let (slot, kept) = probe(record.key)
        if let kept {
            keepEarlier(record, at: kept)
            return
        }
        slots[slot] = Self.slot(tag: Self.tag(record.key), handle: records.append(record))
        count += 1
        if count * 3 > slots.count * 2 { grow() }
    }

    /// Settles a copy of the record at `handle`: the one earlier in input
    /// order is kept there, the other goes to `dropped`.
    @inline(__always)
    private mutating func keepEarlier(_ copy: EventRecord, at handle: Handle) {
        if copy.position < records[handle].position {
            dropped.append(records[handle])
            records[handle] = copy
        } else {
            dropped.append(copy)
        }
    }

    @inline(__always)
    func prefetch(_ key: EventKey) {
        prefetcher.prefetch(slot: home(Self.tag(key)))
    }

    /// Takes in every record of `other`, each mapped through `remap` (which
    /// renumbers identities and side-table entries).
    ///
    /// Performance: no record is copied. `other`'s segments are mapped in
    /// place and chained after this shard's; then each of its records is
    /// looked up here. A new key gets an index slot pointing at the record
    /// where it lies; a key already kept here keeps the earlier copy in the
    /// slot's record, and the adopted record is marked removed.
    mutating func absorb(_ other: consuming EventShard, _ remap: (EventRecord) -> EventRecord) {
        var other = other
        reserveCapacity(count + other.count)
        var incoming = other.records
        let incomingDropped = other.dropped
        other = EventShard()
        incoming.updateEach { record in
            if !record.isRemoved { record = remap(record) }
        }
        let first = records.adoptionBase
        records.adopt(incoming)
        // Each lookup probes a random slot: ask for the slot of a record a few
        // places ahead while this one is placed.
        for range in records.handleRanges(from: first) {
            for handle in range {
                if handle + 8 < range.upperBound { prefetch(records[handle + 8].key) }
                if !records[handle].isRemoved { place(handle) }
            }
        }
        dropped.reserveCapacity(dropped.count + incomingDropped.count)
        for record in incomingDropped { dropped.append(remap(record)) }
    }

    /// The kept record for `key`.
    func kept(_ key: EventKey) -> EventRecord? {
        precondition(!slots.isEmpty, "the store's index was released")
        return probe(key).kept.map { records[$0] }
    }

    /// Indexes the adopted record at `handle`, or settles it against the
    /// copy kept here (it is then marked removed).
    private mutating func place(_ handle: Handle) {
        let record = records[handle]
        let (slot, kept) = probe(record.key)
        if let kept {
            keepEarlier(record, at: kept)
            records[handle].position = EventRecord.removedPosition
            return
        }
        slots[slot] = Self.slot(tag: Self.tag(record.key), handle: handle)
        count += 1
    }

    /// See ``EventStore/releaseIndexes()``.
    mutating func releaseIndex() {
        slots = []
        prefetcher = SlotPrefetcher(slots)
    }

    /// Sizes the index for `n` records.
    mutating func reserveCapacity(_ n: Int) {
        var size = slots.count
        while size * 2 < n * 3 { size *= 2 }
        if size > slots.count { grow(to: size) }
    }

    /// Rebuilds the index with `size` slots (a power of two).
    private mutating func grow(to size: Int? = nil) {
        let size = size ?? slots.count * 2
        let old = slots
        slots = [UInt64](repeating: 0, count: size)
        prefetcher = SlotPrefetcher(slots)
        mask = size - 1
        let mask = mask
        slots.withUnsafeMutableBufferPointer { slots in
            for entry in old where entry != 0 {
                var slot = Int(truncatingIfNeeded: entry >> 32) & mask
                while slots[slot] != 0 { slot = (slot + 1) & mask }
                slots[slot] = entry
            }
        }
    }
}

import Dispatch
