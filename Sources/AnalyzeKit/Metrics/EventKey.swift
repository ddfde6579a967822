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
