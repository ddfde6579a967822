import Dispatch
import Foundation  // NSLock

/// Accepted events keyed by `event_id`: the first in input order is kept,
/// later copies are set aside as duplicates.
///
/// Records are only appended while chunks are parsed; which copy of an event
/// is kept is settled once, by ``settle()``, after every partial has merged.
/// The copy kept is the earliest in input order (by chunk, then by line), so
/// the result does not depend on the order records came in: stores merge
/// associatively and commutatively, and merging is only chaining records on.
/// The store is split into ``shardCount`` shards by key hash; shards merge and
/// settle in parallel.
///
/// Why settle at the end rather than look each event up as it comes: a
/// lookup index over every event of a partial is 12–24 bytes per event for
/// the whole run, and each insert a cache miss into an index far larger than
/// the cache. Settling shard by shard needs one shard's index at a time
/// (about 4 MiB per shard at 5 M events, reused from cache), built once at
/// its final size.
struct EventStore {
    static let shardCount = 16
    // Each shard made apart (not `repeating:`), so no two share empty storage.
    private(set) var shards = (0..<shardCount).map { _ in EventShard() }

    /// Adds a copy of an event, from the chunk numbered `sequence`;
    /// duplicates are settled by ``settle()``.
    /// `shard` is that of the event's key (``shard(of:)``).
    @inline(__always)
    mutating func append(_ record: EventRecord, copy: EventCopy, shard: Int, sequence: Int) {
        shards[shard].append(record, copy: copy, sequence: sequence)
    }

    /// Makes every shard's records and copies this store's own, so that a
    /// batch of ``appendPrepared(_:copy:shard:sequence:)`` may follow.
    mutating func prepareForAppends() {
        for shard in shards.indices { shards[shard].prepareForAppends() }
    }

    /// ``append(_:copy:shard:sequence:)`` without the segments' uniqueness
    /// checks (two calls into the runtime per event): only after
    /// ``prepareForAppends()``, with no copy of the store made since.
    @inline(__always)
    mutating func appendPrepared(_ record: EventRecord, copy: EventCopy, shard: Int, sequence: Int) {
        shards[shard].appendPrepared(record, copy: copy, sequence: sequence)
    }

    /// The shard of an event's key: its top four bits (a bare copy does not
    /// hold its key, so the caller keeps the shard).
    @inline(__always)
    static func shard(of key: EventKey) -> Int { Int(truncatingIfNeeded: key.high >> 60) }

    /// Kept events (before ``settle()``: every record appended or adopted).
    var count: Int { shards.reduce(0) { $0 + $1.count } }

    /// Records with a bare id, duplicates included until
    /// ``releaseCopies()`` numbers their ids (``RunCapacity/bareIDs``).
    var bareCount: Int { shards.reduce(0) { $0 + $1.bareCount } }

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

    /// How many copies settling dropped, as duplicates of a kept one.
    var droppedCount: Int { shards.reduce(0) { $0 + $1.droppedCount } }

    /// The record of every dropped duplicate as it was before settling
    /// marked it removed, shard by shard.
    var droppedRecords: [EventRecord] { shards.flatMap(\.droppedRecords) }

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

    /// Decides, for every event, which copy is kept (the earliest in input
    /// order) and which are dropped, and counts conflicting duplicates; shards run
    /// concurrently. Settling again after more records came in settles
    /// those too.
    mutating func settle() {
        let indexes = SettlingIndexes()
        defer { indexes.free() }
        forEachShardConcurrently { _, shard in
            var index = indexes.take()
            shard.settle(in: &index)
            indexes.give(index)
        }
    }

    /// Frees what only settling reads (16 bytes per record), after the last
    /// ``settle()``: the store can then be scanned, not merged or settled.
    /// Returns the ids that bare copies held (``EventCopy/init(packedID:)``),
    /// each bare record's extra now its index there; shards run concurrently,
    /// each freeing its copies once its ids are out.
    @discardableResult
    mutating func releaseCopies() -> [PackedID] {
        var starts: [Int] = []
        var total = 0
        for shard in shards {
            starts.append(total)
            total += shard.bareCount
        }
        let bases = starts
        return [PackedID](unsafeUninitializedCapacity: total) { ids, initialized in
            nonisolated(unsafe) let ids = ids
            forEachShardConcurrently { i, shard in shard.releaseCopies(movingBareIDsTo: ids, from: bases[i]) }
            initialized = total
        }
    }

    /// Calls `body` with each shard's index and the shard, concurrently.
    private mutating func forEachShardConcurrently(_ body: @Sendable (Int, inout EventShard) -> Void) {
        shards.withUnsafeMutableBufferPointer { shards in
            nonisolated(unsafe) let shards = shards
            DispatchQueue.concurrentPerform(iterations: Self.shardCount) { i in body(i, &shards[i]) }
        }
    }
}

/// The lookup indexes of the shards being settled, reused from one shard to
/// the next: a fresh index per shard cost a page fault per 4 KiB (at 5 M
/// events, 16 000 faults, about a third of settling's time), a reused one
/// only its zeroing. As many exist at once as shards settle at once (one per
/// thread), each as large as the largest shard it served.
private final class SettlingIndexes: @unchecked Sendable {
    // A pthread mutex (`NSLock`), which ThreadSanitizer sees order the
    // hand-over of an index between threads.
    private let lock = NSLock()
    /// Indexes' memory no shard is using.
    private var idle: [UnsafeMutableBufferPointer<UInt64>] = []

    /// Memory for an index no other shard is using (none allocated yet when
    /// none is idle: ``EventShard/settle(in:)`` allocates it).
    func take() -> UnsafeMutableBufferPointer<UInt64> {
        lock.lock()
        defer { lock.unlock() }
        return idle.popLast() ?? UnsafeMutableBufferPointer(start: nil, count: 0)
    }

    func give(_ index: UnsafeMutableBufferPointer<UInt64>) {
        lock.lock()
        idle.append(index)
        lock.unlock()
    }

    /// Frees every index; call once every shard has given its index back.
    func free() {
        lock.lock()
        defer { lock.unlock() }
        for index in idle { index.deallocate() }
        idle = []
    }
}
