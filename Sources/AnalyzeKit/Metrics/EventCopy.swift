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
