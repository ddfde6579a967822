/// The identity of an event for de-duplication: two independent 64-bit
/// hashes of its `event_id` bytes (see ``ByteHash``).
struct EventKey: Hashable {
    var low: UInt64
    var high: UInt64

    init(_ eventID: UnsafeRawBufferPointer) {
        (low, high) = ByteHash.hashPair(eventID, seeds: (0x243f_6a88_85a3_08d3, 0x1319_8a2e_0370_7344))
    }

    /// The key of an `event_id` that fits in 16 bytes (``BareID``), from
    /// those bytes and its kind, so that settling can compute it again from
    /// what a bare copy keeps (the bytes, and its record the kind:
    /// ``EventCopy``). Each kind hashes with seeds of its own: `6D15…` and
    /// `6d15…` are two ids, and 16 bytes read as a UUID are not the same
    /// bytes read as a short id. Every other `event_id` hashes its own bytes
    /// (``init(_:)``): the same text always takes the same way, and another
    /// text is another event.
    init(packedID packed: (UInt64, UInt64), kind: BareID.Kind) {
        let seeds: (UInt64, UInt64)
        switch kind {
        case .lowerUUID: seeds = (0xa409_3822_299f_31d0, 0x4528_21e6_38d0_1377)
        case .upperUUID: seeds = (0x2ffd_72db_d01a_dfb7, 0xb8e1_afed_6a26_7e96)
        case .short: seeds = (0x0801_f2e2_858e_fc16, 0x6369_20d8_7157_1e69)
        }
        (low, high) = withUnsafeBytes(of: packed) { ByteHash.hashPair($0, seeds: seeds) }
    }

    /// The 32 bits of the high half a copy keeps (``EventCopy/keyHigh``).
    var copyHigh: UInt32 { UInt32(truncatingIfNeeded: high >> 32) }
}

/// An `event_id` kept in 16 bytes, with the kind of its spelling: a
/// canonical UUID in one letter case (the 16 bytes it spells,
/// ``PackedUUID``), or a short id — 1 to 16 bytes, the last not NUL — kept as
/// written and padded with NUL bytes (so its length is where the last
/// non-NUL byte ends). Such an id of an identity event is its copy until
/// settling, then an entry of `PartialAggregate.bareIDs` (a *bare id*); its
/// kind is in its record (``EventRecord/bareIDKind``).
enum BareID {
    enum Kind: Int32, CaseIterable {
        case lowerUUID = 0, upperUUID = 1, short = 2
    }

    /// The kind of `id` and its 16 bytes, written to `packed`; nil (and
    /// `packed` unspecified) when it fits neither way.
    static func pack(_ id: UnsafeRawBufferPointer, into packed: inout (UInt64, UInt64)) -> Kind? {
        if let letterCase = withUnsafeMutableBytes(of: &packed, { PackedUUID.pack(id, into: $0) }) {
            return letterCase == .lower ? .lowerUUID : .upperUUID
        }
        guard id.count <= 16, let last = id.last, last != 0 else { return nil }
        packed = (0, 0)
        withUnsafeMutableBytes(of: &packed) { $0.copyMemory(from: id) }
        return .short
    }

    /// The extra of a record whose bare id is at `index` in
    /// `PartialAggregate.bareIDs` (0 until settling moves it there) and of
    /// `kind`: the two share the field (``EventRecord/extra``).
    static func extra(index: Int, kind: Kind) -> Int32 {
        precondition(index < Int(EventRecord.extraLimit) / 4, "more than about 2²⁷ identity events with ids kept bare")
        return Int32(index) << 2 | kind.rawValue
    }

    /// The index and kind a bare id's ``extra(index:kind:)`` holds.
    static func indexAndKind(inExtra extra: Int32) -> (index: Int, kind: Kind) {
        guard let kind = Kind(rawValue: extra & 3) else { preconditionFailure("a bare id of no kind") }
        return (Int(extra >> 2), kind)
    }

    /// Whether the id packed as `a` precedes the one packed as `b`, both of
    /// one kind, in the SPEC's byte order of their texts. Packing keeps that
    /// order: a UUID's digits are packed in text order, each into a nibble
    /// with the order of the digits of one case, its hyphens in the same
    /// places; a short id is its bytes padded with NUL, and a text that is a
    /// prefix of another is padded to bytes below the other's (its last byte
    /// is not NUL).
    ///
    /// Performance: two compares, against writing both texts out (ties of
    /// instant are common in exports with duplicates or second timestamps).
    @inline(__always)
    static func precedes(_ a: (UInt64, UInt64), _ b: (UInt64, UInt64)) -> Bool {
        let (a0, b0) = (UInt64(bigEndian: a.0), UInt64(bigEndian: b.0))
        if a0 != b0 { return a0 < b0 }
        return UInt64(bigEndian: a.1) < UInt64(bigEndian: b.1)
    }

    /// Calls `body` with the text of the id packed as `packed` of `kind`.
    @inline(__always)
    static func withText<R>(of packed: (UInt64, UInt64), kind: Kind, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        guard kind == .short else {
            var text = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))  // 40 bytes
            return withUnsafeMutableBytes(of: &text) { text in
                withUnsafeBytes(of: packed) {
                    PackedUUID.unpack($0, case: kind == .lowerUUID ? .lower : .upper, into: text)
                }
                return body(UnsafeRawBufferPointer(rebasing: text[0..<PackedUUID.textCount]))
            }
        }
        return withUnsafeBytes(of: packed) { bytes in
            var count = 16
            while count > 1 && bytes[count - 1] == 0 { count -= 1 }
            return body(UnsafeRawBufferPointer(rebasing: bytes[0..<count]))
        }
    }
}

/// One accepted event, reduced to what the metrics read (24 bytes).
///
/// Identities are ids of the partial's ``IdentityTable`` plus one (0 = none).
/// Quiz answers, and identity events whose `event_id` is not a bare id
/// (``BareID``), also have an ``EventExtra`` (their `event_id` bytes, for
/// ordering ties, and their answer); an identity event with a bare id keeps
/// it in `PartialAggregate.bareIDs` instead (``EventRecord/hasBareID``).
/// What settling duplicates reads is kept apart, in an ``EventCopy`` per
/// record, and freed before the metrics are computed.
///
/// Memory: the fields are packed into three words, each field in the fewest
/// bits its range needs (at 5 M events, 40 MB less than 32-byte records with
/// a field per value); reading one is a shift and a mask:
///
/// | word | bits, high to low |
/// |---|---|
/// | 0 | seconds since ``Instant/minimum`` (39) · nanoseconds >> 5 (25) |
/// | 1 | device (30) · profile (30) · type (3) · ``hasBareID`` (1) |
/// | 2 | customer user (30) · extra + 1 (29) · nanoseconds & 31 (5) |
///
/// So an instant is in years 0001–9999 (all the parser accepts), an identity
/// id plus one below 2³⁰ (``identityLimit``), and an extra handle below
/// 2²⁹ − 1 (``extraLimit``); setting a value outside stops the run.
struct EventRecord {
    private var word0: UInt64
    private var word1: UInt64
    private var word2: UInt64

    /// Identity ids plus one are below this.
    static let identityLimit: UInt32 = 1 << 30
    /// Extra handles are below this.
    static let extraLimit: Int32 = (1 << 29) - 1

    init(seconds: Int64, nanoseconds: UInt32, extra: Int32, device: UInt32, profile: UInt32,
         customerUser: UInt32, type: EventType, hasBareID: Bool = false) {
        (word0, word1, word2) = (0, 0, 0)
        self.hasBareID = hasBareID
        self.seconds = seconds
        self.nanoseconds = nanoseconds
        self.extra = extra
        self.device = device
        self.profile = profile
        self.customerUser = customerUser
        self.type = type
    }

    /// The bits `[shift, shift + width)` of `word`.
    @inline(__always)
    private static func field(_ word: UInt64, _ shift: UInt64, _ width: UInt64) -> UInt64 {
        word >> shift & (1 << width - 1)
    }

    /// `word` with the bits `[shift, shift + width)` replaced by `value`.
    @inline(__always)
    private static func replacing(_ word: UInt64, _ shift: UInt64, _ width: UInt64, with value: UInt64) -> UInt64 {
        precondition(value < 1 << width, "a value too large for its field of an event record")
        return word & ~((1 << width - 1) << shift) | value << shift
    }

    var seconds: Int64 {
        @inline(__always) get { Int64(word0 >> 25) + Instant.minimum.seconds }
        set { word0 = Self.replacing(word0, 25, 39, with: UInt64(newValue - Instant.minimum.seconds)) }
    }

    var nanoseconds: UInt32 {
        @inline(__always) get { UInt32(truncatingIfNeeded: (word0 & (1 << 25 - 1)) << 5 | word2 & 31) }
        set {
            precondition(newValue < 1 << 30, "nanoseconds out of range")
            word0 = Self.replacing(word0, 0, 25, with: UInt64(newValue >> 5))
            word2 = Self.replacing(word2, 0, 5, with: UInt64(newValue & 31))
        }
    }

    var device: UInt32 {
        @inline(__always) get { UInt32(truncatingIfNeeded: word1 >> 34) }
        set { word1 = Self.replacing(word1, 34, 30, with: UInt64(newValue)) }
    }

    var profile: UInt32 {
        @inline(__always) get { UInt32(truncatingIfNeeded: Self.field(word1, 4, 30)) }
        set { word1 = Self.replacing(word1, 4, 30, with: UInt64(newValue)) }
    }

    var type: EventType {
        @inline(__always) get { EventType(rawValue: UInt8(truncatingIfNeeded: Self.field(word1, 1, 3))).unsafelyUnwrapped }
        set { word1 = Self.replacing(word1, 1, 3, with: UInt64(newValue.rawValue)) }
    }

    /// Whether the event's id is a bare id (an identity event whose
    /// `event_id` fits in 16 bytes, ``BareID``: those bytes and nothing
    /// else), and ``extra`` then says where and of which kind
    /// (``bareIDIndex``, ``bareIDKind``), rather than being a handle in
    /// `PartialAggregate.extras`.
    var hasBareID: Bool {
        @inline(__always) get { word1 & 1 != 0 }
        set { word1 = word1 & ~1 | (newValue ? 1 : 0) }
    }

    var customerUser: UInt32 {
        @inline(__always) get { UInt32(truncatingIfNeeded: word2 >> 34) }
        set { word2 = Self.replacing(word2, 34, 30, with: UInt64(newValue)) }
    }

    /// Handle into `PartialAggregate.extras`, or -1; for a record with a
    /// bare id, that id's index in `PartialAggregate.bareIDs` (0 until
    /// settling moves it there) times four, plus its kind.
    var extra: Int32 {
        @inline(__always) get { Int32(truncatingIfNeeded: Self.field(word2, 5, 29)) - 1 }
        set {
            precondition(newValue >= -1 && newValue < Self.extraLimit, "more than about 2²⁹ identity events and quiz answers")
            word2 = Self.replacing(word2, 5, 29, with: UInt64(newValue + 1))
        }
    }

    /// The kind of a bare id (``hasBareID``).
    var bareIDKind: BareID.Kind { BareID.indexAndKind(inExtra: extra).kind }

    /// A bare id's index in `PartialAggregate.bareIDs`, once settling moved it there.
    var bareIDIndex: Int { BareID.indexAndKind(inExtra: extra).index }

    /// Makes the record's id a bare id of `kind`, at `index` in
    /// `PartialAggregate.bareIDs` (0 until settling moves it there).
    mutating func setBareID(index: Int, kind: BareID.Kind) {
        hasBareID = true
        extra = BareID.extra(index: index, kind: kind)
    }

    var instant: Instant { Instant(seconds: seconds, nanoseconds: nanoseconds) }

    /// The record's place in the SPEC's ordering key.
    var orderingKey: OrderingKey {
        OrderingKey(seconds: seconds, nanoseconds: nanoseconds, extra: extra, hasBareID: hasBareID)
    }

    /// The nanoseconds of a record that settling found to be a later copy of
    /// a kept one (no instant has them): it stays where it is (records are
    /// never moved) and every scan skips it.
    static let removedNanoseconds: UInt32 = (1 << 30) - 1

    var isRemoved: Bool { nanoseconds == Self.removedNanoseconds }

    /// Whether a dropped duplicate differs from the kept one in anything the
    /// metrics read (SPEC §2, conflicting duplicates), given both copies.
    func hasSameContent(as other: EventRecord, fingerprints: (UInt32, UInt32)) -> Bool {
        type == other.type && seconds == other.seconds && nanoseconds == other.nanoseconds
            && device == other.device && profile == other.profile && customerUser == other.customerUser
            && fingerprints.0 == fingerprints.1
    }
}

/// Which event a record is a copy of, and a fingerprint of the content its
/// ``EventRecord`` does not hold (the action's, or an unknown type's
/// spelling): what settling duplicates reads (16 bytes). Which chunk the
/// copy came from is kept per run of records (``EventShard``), not per copy.
///
/// A *bare* copy, that of an identity event whose `event_id` fits in 16 bytes
/// (``BareID``; its record's `hasBareID`, the kind in its record's extra),
/// holds instead those 16 bytes (``init(packedID:)``): its key is
/// ``EventKey/init(packedID:kind:)`` of them, identity events have no content
/// fingerprint, and settling moves those bytes to the partial's bare ids,
/// which order ties, before the copies are freed. So such an event keeps 16 bytes until then, not 32 (key and
/// fingerprint, and its id apart). Only ``EventShard`` tells the two kinds
/// apart, by the record.
struct EventCopy {
    /// The low half of the event's ``EventKey``.
    var keyLow: UInt64
    /// The top 32 bits of the key's high half (they choose the shard and
    /// the index tag). With `keyLow`, 96 bits of key: two distinct ids
    /// among 10⁹ events share them with a probability below 10⁻¹¹.
    var keyHigh: UInt32
    /// The content fingerprint folded to 32 bits. Two copies whose records
    /// are equal but whose actions differ are taken for equal with a
    /// probability of 2⁻³², once per such pair: the count of conflicting
    /// duplicates may then be one short.
    var fingerprint: UInt32

    init(key: EventKey, fingerprint: UInt64) {
        keyLow = key.low
        keyHigh = key.copyHigh
        self.fingerprint = Self.fold(fingerprint)
    }

    /// A bare copy: the 16 bytes of an `event_id` (``BareID``).
    init(packedID: (UInt64, UInt64)) {
        keyLow = packedID.0
        keyHigh = UInt32(truncatingIfNeeded: packedID.1)
        fingerprint = UInt32(truncatingIfNeeded: packedID.1 >> 32)
    }

    /// A bare copy's 16 bytes.
    var packedID: (UInt64, UInt64) { (keyLow, UInt64(keyHigh) | UInt64(fingerprint) << 32) }

    /// A 64-bit content fingerprint folded to the 32 bits a copy keeps.
    static func fold(_ fingerprint: UInt64) -> UInt32 { UInt32(truncatingIfNeeded: fingerprint ^ fingerprint >> 32) }

    /// The folded fingerprint of an event without content beyond its record
    /// (``ParsedEvent/contentFingerprint`` 0): that of every identity event,
    /// so of every bare copy.
    static let noContent = fold(0)
}

/// What only identity events and quiz answers carry: where their `event_id`
/// bytes are (ordering ties) and their answer, if any.
///
/// Memory: 20 bytes (4-byte aligned): the id's 16 bytes, and one word for
/// the answer's handle and how the id is stored.
struct EventExtra {
    /// A packed id's 16 bytes (see ``packedKind``); for an id stored as it
    /// was, its handle in `PartialAggregate.eventIDs` (the first two words)
    /// and its length (the third).
    private(set) var id: (UInt32, UInt32, UInt32, UInt32)
    /// The answer's handle plus one (0: none), times four, plus how the id is
    /// kept (``asWritten``, or a ``BareID`` kind's raw value plus one).
    private var answerAndStorage: UInt32

    /// An id kept as written, in `PartialAggregate.eventIDs`.
    private static let asWritten: UInt32 = 0

    /// An extra whose id was packed into `bytes` (``BareID/pack(_:into:)``) as `kind`.
    init(packedID bytes: (UInt64, UInt64), kind: BareID.Kind, answer: Int32) {
        id = unsafeBitCast(bytes, to: (UInt32, UInt32, UInt32, UInt32).self)
        answerAndStorage = UInt32(kind.rawValue) + 1
        self.answer = answer
    }

    /// An extra whose id's bytes are at `idOffset` in `PartialAggregate.eventIDs`.
    init(idOffset: Int, idCount: Int32, answer: Int32) {
        id = (0, 0, UInt32(idCount), 0)
        answerAndStorage = Self.asWritten
        self.idOffset = idOffset
        self.answer = answer
    }

    /// The handle of the id's bytes in `PartialAggregate.eventIDs` (ids
    /// stored as they were).
    var idOffset: Int {
        get { Int(UInt64(id.1) << 32 | UInt64(id.0)) }
        set { (id.0, id.1) = (UInt32(truncatingIfNeeded: newValue), UInt32(truncatingIfNeeded: newValue >> 32)) }
    }

    /// The length of an id stored as it was.
    var idCount: Int32 { Int32(bitPattern: id.2) }

    /// Handle into `PartialAggregate.answers`, or -1.
    var answer: Int32 {
        @inline(__always) get { Int32(bitPattern: answerAndStorage >> 2) - 1 }
        set {
            precondition(newValue >= -1 && newValue < (1 << 30) - 1, "too many quiz answers")
            answerAndStorage = UInt32(newValue + 1) << 2 | answerAndStorage & 3
        }
    }

    /// How the id was packed, or nil when it is stored as it was.
    var packedKind: BareID.Kind? {
        let storage = answerAndStorage & 3
        return storage == Self.asWritten ? nil : BareID.Kind(rawValue: Int32(storage) - 1)
    }
}

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

import CSupport
import Dispatch
import Foundation  // NSLock
