import CSupport

/// One shard of an ``EventStore``: the records whose key hash falls here.
///
/// Performance: records and their copies' keys are appended to two
/// ``SegmentedArray``s in step (segments of 32 768 entries, 768 and
/// 512 KiB, so a handle names both), which never copy as they grow or merge.
/// The chunk each copy came from is kept once per run of copies from one
/// chunk (about 150 copies per run on the generator's exports: some 2 500
/// lines a chunk over 16 shards), and
/// looked up only for the copies of an event met twice. ``settle(in:)`` reads
/// the keys alone and looks every copy up once, in an index built for that
/// moment at its final size: open addressing (linear probing, ≤ 2/3 load)
/// over 8-byte slots holding 32 bits of the key (the tag) beside the
/// handle, so a probe reads a key only when the tags match. The index's
/// memory is reused by the next shard the same thread settles, and freed
/// when ``EventStore/settle()`` returns.
struct EventShard {
    typealias Handle = SegmentedArray<EventRecord>.Handle

    /// Kept records, and (after ``settle(in:)``) removed ones that every scan
    /// skips.
    private(set) var records = SegmentedArray<EventRecord>()
    /// Beside each record (same handle): its key and fingerprint, until
    /// ``releaseCopies()``.
    private var copies: SegmentedArray<EventCopy>
    /// Where each run of copies from one chunk starts, in handle order.
    private var chunkRuns: [ChunkRun] = []
    /// The chunk of the last run, or -1 when the next copy starts a run.
    private var lastSequence = -1
    /// Kept records, counting the unsettled ones.
    private(set) var count = 0
    /// Every copy that lost to an earlier one: its record and copy stay in
    /// place, the record marked removed, and this keeps the field the mark
    /// overwrote (8 bytes per dropped copy instead of the 40 of both whole,
    /// which an input read twice needs for every line).
    private var droppedEntries: [DroppedEntry] = []
    /// Records appended with a bare copy (``EventCopy/init(packedID:)``),
    /// removed ones included: the room their ids take when moved out.
    private(set) var bareCount = 0
    /// How many dropped copies differ from the copy kept (as of the last
    /// ``settle(in:)``).
    private(set) var conflictingDuplicates = 0

    /// A dropped copy: its handle, and its record's nanoseconds from before
    /// they were overwritten with the mark of a removed record.
    private struct DroppedEntry {
        var handle: UInt32
        var nanoseconds: UInt32
    }

    /// How many copies settling dropped.
    var droppedCount: Int { droppedEntries.count }

    /// The dropped copies' records, as they were before their removal marks.
    var droppedRecords: [EventRecord] {
        let records = records.reader
        return droppedEntries.map { Self.droppedRecord($0, in: records) }
    }

    /// The record of a dropped copy as it was before its removal mark.
    private static func droppedRecord(_ entry: DroppedEntry, in records: SegmentedArray<EventRecord>.Reader) -> EventRecord {
        var record = records[Int(entry.handle)]
        record.nanoseconds = entry.nanoseconds
        return record
    }

    /// The part of an ``EventKey`` a copy keeps: 96 bits.
    private struct CopyKey: Equatable {
        var low: UInt64
        var high: UInt32
    }

    /// The key of the copy at `handle`, read through the shard's readers.
    @inline(__always)
    private static func key(
        at handle: Handle, copies: SegmentedArray<EventCopy>.Reader, records: SegmentedArray<EventRecord>.Reader
    ) -> CopyKey {
        key(of: copies[handle], record: records[handle])
    }

    /// The key of `copy`, the copy of `record` (a bare copy when the record
    /// has a bare id, of the kind the record says).
    @inline(__always)
    private static func key(of copy: EventCopy, record: EventRecord) -> CopyKey {
        guard record.hasBareID else { return CopyKey(low: copy.keyLow, high: copy.keyHigh) }
        let key = EventKey(packedID: copy.packedID, kind: record.bareIDKind)
        return CopyKey(low: key.low, high: key.copyHigh)
    }

    /// The folded content fingerprint of the copy at `handle`.
    @inline(__always)
    private func fingerprint(at handle: Handle) -> UInt32 {
        records[handle].hasBareID ? EventCopy.noContent : copies[handle].fingerprint
    }

    /// A run of copies from one chunk: its first handle and the chunk's sequence number.
    private struct ChunkRun {
        var start: Handle
        var sequence: Int
    }

    init() {
        copies = SegmentedArray(shift: records.shift)  // records and copies share handles
    }

    /// The slot entry for a copy: its tag beside its handle plus one.
    @inline(__always)
    private static func slot(tag: UInt32, handle: Handle) -> UInt64 {
        precondition(handle < Int(UInt32.max), "too many records in one shard")
        return UInt64(tag) << 32 | UInt64(handle + 1)
    }

    @inline(__always)
    mutating func append(_ record: EventRecord, copy: EventCopy, sequence: Int) {
        prepareForAppends()
        appendPrepared(record, copy: copy, sequence: sequence)
    }

    /// Makes the records and copies this shard's own (see
    /// ``SegmentedArray/makeUniqueForAppends()``).
    mutating func prepareForAppends() {
        records.makeUniqueForAppends()
        copies.makeUniqueForAppends()
    }

    /// ``append(_:copy:sequence:)`` without the uniqueness checks: only after
    /// ``prepareForAppends()``, with no copy of the shard made since.
    @inline(__always)
    mutating func appendPrepared(_ record: EventRecord, copy: EventCopy, sequence: Int) {
        let handle = records.appendAssumingUnique(record)
        copies.appendAssumingUnique(copy)
        count += 1
        if record.hasBareID { bareCount += 1 }
        if sequence != lastSequence {
            chunkRuns.append(ChunkRun(start: handle, sequence: sequence))
            lastSequence = sequence
        }
    }

    /// The sequence number of the chunk the copy at `handle` came from, in
    /// the shard's `chunkRuns`.
    private static func sequence(of handle: Handle, in chunkRuns: [ChunkRun]) -> Int {
        // The last run starting at or before `handle`.
        var low = 0, high = chunkRuns.count
        while high - low > 1 {
            let middle = (low + high) / 2
            if chunkRuns[middle].start <= handle { low = middle } else { high = middle }
        }
        return chunkRuns[low].sequence
    }

    /// Takes in every record of `other`, each mapped through `remap` (which
    /// renumbers identities and side-table entries).
    ///
    /// Performance: no record is copied and none is looked up: `other`'s
    /// segments are mapped in place and chained after this shard's.
    mutating func absorb(_ other: consuming EventShard, _ remap: (EventRecord) -> EventRecord) {
        var other = other
        var incoming = other.records
        let incomingCopies = other.copies
        let incomingDropped = other.droppedEntries
        let incomingRuns = other.chunkRuns
        precondition(copies.count == records.count && incomingCopies.count == incoming.count,
                     "a store merged after releaseCopies()")
        count += other.count
        bareCount += other.bareCount
        other = EventShard()
        // Removed records too: the dropped copies they stand for are compared
        // with kept ones after this merge.
        incoming.updateEach { record in record = remap(record) }
        let base = records.adoptionBase
        precondition(base + incoming.count < Int(UInt32.max), "too many records in one shard")
        chunkRuns += incomingRuns.lazy.map { ChunkRun(start: $0.start + base, sequence: $0.sequence) }
        lastSequence = -1
        records.adopt(consume incoming)
        copies.adopt(consume incomingCopies)
        droppedEntries.reserveCapacity(droppedEntries.count + incomingDropped.count)
        for var entry in incomingDropped {
            entry.handle += UInt32(base)
            droppedEntries.append(entry)
        }
    }

    /// See ``EventStore/settle()``. Every kept copy is looked up in an index
    /// of this shard's kept copies, in handle order; a key met again keeps
    /// the earlier copy (by chunk, then by handle: the order of appending),
    /// the index then points at it, and the other record is marked removed.
    ///
    /// Settling is idempotent, and records adopted from a settled shard are
    /// settled again with the rest: each was kept there, but may be a copy
    /// of one kept here.
    ///
    /// `index` is the memory of the lookup index: grown (reallocated) when
    /// smaller than this shard needs, zeroed, and left allocated for the
    /// caller to reuse or free.
    mutating func settle(in index: inout UnsafeMutableBufferPointer<UInt64>) {
        precondition(copies.count == records.count, "a store settled after releaseCopies()")
        var size = 256
        while size * 2 < count * 3 { size *= 2 }
        if index.count < size {
            index.deallocate()
            index = .allocate(capacity: size)
        }
        let slots = UnsafeMutableBufferPointer(rebasing: index[0..<size])
        slots.initialize(repeating: 0)
        let mask = size - 1
        var kept = 0
        // Readers, not `self`, for the helpers below: a call that is not
        // inlined would otherwise be handed a copy of the shard (160 bytes
        // per record). Records are only changed in place here, which the
        // readers see. (Were the records shared with a copy of the store,
        // the first removal mark would copy them and the readers would go on
        // reading the unmarked ones: all they read, keys and dropped records'
        // fields, is the same in both.)
        let copyReader = copies.reader, recordReader = records.reader
        withUnsafeTemporaryAllocation(of: CopyKey.self, capacity: Self.keyBlock) { keys in
            for range in copies.handleRanges(from: 0) {
                var blockStart = range.lowerBound
                while blockStart < range.upperBound {
                    // A block's keys first (a bare copy's is hashed from its id),
                    // asking for each one's slot; each lookup probes a random slot.
                    let blockEnd = min(blockStart + Self.keyBlock, range.upperBound)
                    let blockRecords = records.elements(in: blockStart..<blockEnd)
                    let blockCopies = copies.elements(in: blockStart..<blockEnd)
                    for i in blockRecords.indices {
                        let key = Self.key(of: blockCopies[i], record: blockRecords[i])
                        keys[i] = key
                        analyze_prefetch(slots.baseAddress! + (Int(truncatingIfNeeded: key.high) & mask))
                    }
                    for handle in blockStart..<blockEnd where !blockRecords[handle - blockStart].isRemoved {
                        let key = keys[handle - blockStart]
                        let (slot, first) = Self.probe(
                            key, in: UnsafeBufferPointer(slots), mask: mask, copies: copyReader, records: recordReader)
                        guard let first else {
                            slots[slot] = Self.slot(tag: key.high, handle: handle)
                            kept += 1
                            continue
                        }
                        // Copies from one chunk are in handle order, and `first`
                        // was met before `handle`.
                        let keepsLater = Self.sequence(of: handle, in: chunkRuns) < Self.sequence(of: first, in: chunkRuns)
                        let loser = keepsLater ? first : handle
                        droppedEntries.append(DroppedEntry(handle: UInt32(loser), nanoseconds: records[loser].nanoseconds))
                        records[loser].nanoseconds = EventRecord.removedNanoseconds
                        if keepsLater { slots[slot] = Self.slot(tag: key.high, handle: handle) }
                    }
                    blockStart = blockEnd
                }
            }
        }
        count = kept
        // Conflicts are counted against the copy finally kept, so they are
        // recounted over every dropped copy, old and new.
        conflictingDuplicates = 0
        do {
            let slots = UnsafeBufferPointer(slots)
            for entry in droppedEntries {
                let dropped = Int(entry.handle)
                let key = Self.key(at: dropped, copies: copyReader, records: recordReader)
                guard let handle = Self.probe(key, in: slots, mask: mask, copies: copyReader, records: recordReader).kept else {
                    preconditionFailure("a dropped copy without a kept one")
                }
                let record = Self.droppedRecord(entry, in: recordReader)
                if !records[handle].hasSameContent(as: record, fingerprints: (fingerprint(at: handle), fingerprint(at: dropped))) {
                    conflictingDuplicates += 1
                }
            }
        }
    }

    /// How many keys settling computes ahead of their lookups.
    private static let keyBlock = 64

    /// Where `key` is in the settling index `slots`: the handle of the copy
    /// kept for it when indexed, else the free slot where it would go.
    @inline(__always)
    private static func probe(
        _ key: CopyKey, in slots: UnsafeBufferPointer<UInt64>, mask: Int,
        copies: SegmentedArray<EventCopy>.Reader, records: SegmentedArray<EventRecord>.Reader
    ) -> (slot: Int, kept: Handle?) {
        var slot = Int(truncatingIfNeeded: key.high) & mask
        while true {
            let entry = slots[slot]
            if entry == 0 { return (slot, nil) }
            let handle = Int(truncatingIfNeeded: entry & 0xFFFF_FFFF) - 1
            if entry >> 32 == UInt64(key.high) && Self.key(at: handle, copies: copies, records: records) == key {
                return (slot, handle)
            }
            slot = (slot + 1) & mask
        }
    }

    /// See ``EventStore/releaseCopies()``: each bare copy's id is first
    /// written to `ids`, from `base` on, in handle order (``bareCount`` of
    /// them), and its record's extra then says its index there (and its kind, as before).
    mutating func releaseCopies(movingBareIDsTo ids: UnsafeMutableBufferPointer<PackedID>, from base: Int) {
        var next = base
        let bareCopies = copies
        records.updateEachWithHandle { handle, record in
            guard record.hasBareID else { return }
            (ids.baseAddress! + next).initialize(to: PackedID(bytes: bareCopies[handle].packedID))
            record.setBareID(index: next, kind: record.bareIDKind)
            next += 1
        }
        precondition(next - base == bareCount, "bare copies miscounted")
        copies = SegmentedArray(shift: records.shift)
        chunkRuns = []
    }
}
