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
/// Records are only appended while chunks are parsed; which copy of an event
/// is kept is settled once, by ``settle()``, after every partial has merged.
/// The copy kept is the one with the smallest position, so the result does
/// not depend on the order records came in: stores merge associatively and
/// commutatively, and merging is only chaining records on. The store is
/// split into ``shardCount`` shards by key hash; shards merge and settle in
/// parallel.
///
/// Why settle at the end rather than look each event up as it comes: a
/// lookup index over every event of a partial is 12–24 bytes per event for
/// the whole run, and each insert a cache miss into an index far larger than
/// the cache. Settling shard by shard needs one shard's index at a time
/// (about 4 MiB per shard at 5 M events, reused from cache), built once at
/// its final size.
struct EventStore {
    static let shardCount = 16
    private(set) var shards = [EventShard](repeating: EventShard(), count: shardCount)

    @inline(__always)
    private static func shard(_ key: EventKey) -> Int { Int(truncatingIfNeeded: key.high >> 60) }

    /// Adds a copy of an event; duplicates are settled by ``settle()``.
    @inline(__always)
    mutating func append(_ record: EventRecord) {
        shards[Self.shard(record.key)].append(record)
    }

    /// Kept events (before ``settle()``: every record appended or adopted).
    var count: Int { shards.reduce(0) { $0 + $1.count } }

    /// Dropped duplicates that differ from the copy kept in anything the
    /// metrics read (SPEC §2); counted by ``settle()``.
    var conflictingDuplicates: Int { shards.reduce(0) { $0 + $1.conflictingDuplicates } }

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

    /// Every dropped duplicate, shard by shard.
    var dropped: FlattenSequence<LazyMapSequence<[EventShard], [EventRecord]>> {
        shards.lazy.map(\.dropped).joined()
    }

    /// Takes every record of `other` in, mapping each through `remap`; the
    /// shards run concurrently, and records are not copied (see
    /// ``EventShard/absorb(_:_:)``).
    mutating func absorb(_ other: consuming EventStore, _ remap: @escaping @Sendable (EventRecord) -> EventRecord) {
        var source = other
        source.shards.withUnsafeMutableBufferPointer { from in
            nonisolated(unsafe) let from = from
            forEachShardConcurrently { i, target in
                // Taken out first, so its segments are uniquely owned and are
                // mapped in place, not copied.
                var shard = EventShard()
                swap(&shard, &from[i])
                target.absorb(consume shard, remap)
            }
        }
    }

    /// Decides, for every event, which copy is kept (the smallest position)
    /// and which are dropped, and counts conflicting duplicates; shards run
    /// concurrently. Settling again after more records came in settles
    /// those too.
    mutating func settle() {
        forEachShardConcurrently { _, shard in shard.settle() }
    }

    /// Calls `body` with each shard's index and the shard, concurrently.
    private mutating func forEachShardConcurrently(_ body: @Sendable (Int, inout EventShard) -> Void) {
        shards.withUnsafeMutableBufferPointer { shards in
            nonisolated(unsafe) let shards = shards
            DispatchQueue.concurrentPerform(iterations: Self.shardCount) { i in body(i, &shards[i]) }
        }
    }
}

/// One shard of an ``EventStore``: the records whose key hash falls here.
///
/// Performance: records are appended to a ``SegmentedArray`` (1 MiB segments
/// of 16 384 records), which never copies them as it grows or merges.
/// ``settle()`` looks every record up once in an index built for that moment
/// at its final size: open addressing (linear probing, ≤ 2/3 load) over
/// 8-byte slots holding 32 bits of the key (the tag) beside the record's
/// handle, so a probe reads a record only when the tags match. The index is
/// freed before ``settle()`` returns.
struct EventShard {
    typealias Handle = SegmentedArray<EventRecord>.Handle

    /// Kept records, and (after ``settle()``) removed ones that every scan
    /// skips.
    private(set) var records = SegmentedArray<EventRecord>()
    /// Kept records, counting the unsettled ones.
    private(set) var count = 0
    /// Every copy that lost to an earlier one.
    private(set) var dropped: [EventRecord] = []
    /// How many of `dropped` differ from the copy kept (as of the last
    /// ``settle()``).
    private(set) var conflictingDuplicates = 0

    /// 32 bits of the key. (The top 4 chose the shard: the home slot uses the
    /// low bits.)
    @inline(__always)
    private static func tag(_ key: EventKey) -> UInt64 { key.high >> 32 }

    /// The slot entry for a record: its tag beside its handle plus one.
    @inline(__always)
    private static func slot(tag: UInt64, handle: Handle) -> UInt64 {
        precondition(handle < Int(UInt32.max), "too many records in one shard")
        return tag << 32 | UInt64(handle + 1)
    }

    @inline(__always)
    mutating func append(_ record: EventRecord) {
        records.append(record)
        count += 1
    }

    /// Takes in every record of `other`, each mapped through `remap` (which
    /// renumbers identities and side-table entries).
    ///
    /// Performance: no record is copied and none is looked up: `other`'s
    /// segments are mapped in place and chained after this shard's.
    mutating func absorb(_ other: consuming EventShard, _ remap: (EventRecord) -> EventRecord) {
        var other = other
        var incoming = other.records
        let incomingDropped = other.dropped
        count += other.count
        other = EventShard()
        incoming.updateEach { record in
            if !record.isRemoved { record = remap(record) }
        }
        records.adopt(incoming)
        dropped.reserveCapacity(dropped.count + incomingDropped.count)
        for record in incomingDropped { dropped.append(remap(record)) }
    }

    /// See ``EventStore/settle()``. Every kept record is looked up in an
    /// index of this shard's kept records, in handle order; a key met again
    /// keeps the earlier copy (by position) in the first record's place, and
    /// the later record is marked removed.
    ///
    /// Settling is idempotent, and records adopted from a settled shard are
    /// settled again with the rest: each was kept there, but may be a copy
    /// of one kept here.
    mutating func settle() {
        var size = 256
        while size * 2 < count * 3 { size *= 2 }
        var slots = [UInt64](repeating: 0, count: size)
        let mask = size - 1
        var kept = 0
        slots.withUnsafeMutableBufferPointer { slots in
            for range in records.handleRanges(from: 0) {
                for handle in range {
                    // Each lookup probes a random slot: ask for the slot of a
                    // record a few places ahead.
                    if handle + 8 < range.upperBound {
                        analyze_prefetch(slots.baseAddress! + (Int(truncatingIfNeeded: Self.tag(records[handle + 8].key)) & mask))
                    }
                    let record = records[handle]
                    guard !record.isRemoved else { continue }
                    let tag = Self.tag(record.key)
                    var slot = Int(truncatingIfNeeded: tag) & mask
                    while true {
                        let entry = slots[slot]
                        if entry == 0 {
                            slots[slot] = Self.slot(tag: tag, handle: handle)
                            kept += 1
                            break
                        }
                        let other = Int(truncatingIfNeeded: entry & 0xFFFF_FFFF) - 1
                        if entry >> 32 == tag && records[other].key == record.key {
                            // The earlier copy stays in the first record's place.
                            if record.position < records[other].position {
                                dropped.append(records[other])
                                records[other] = record
                            } else {
                                dropped.append(record)
                            }
                            records[handle].position = EventRecord.removedPosition
                            break
                        }
                        slot = (slot + 1) & mask
                    }
                }
            }
        }
        count = kept
        // Conflicts are counted against the copy finally kept, so they are
        // recounted over every dropped copy, old and new.
        conflictingDuplicates = 0
        slots.withUnsafeBufferPointer { slots in
            for copy in dropped {
                let tag = Self.tag(copy.key)
                var slot = Int(truncatingIfNeeded: tag) & mask
                while true {
                    let entry = slots[slot]
                    precondition(entry != 0, "a dropped copy without a kept one")
                    let handle = Int(truncatingIfNeeded: entry & 0xFFFF_FFFF) - 1
                    if entry >> 32 == tag && records[handle].key == copy.key {
                        if !records[handle].hasSameContent(as: copy) { conflictingDuplicates += 1 }
                        break
                    }
                    slot = (slot + 1) & mask
                }
            }
        }
    }
}

import CSupport
import Dispatch
