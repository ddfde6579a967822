/// An accepted event waiting, in a small batch, for its identities to be
/// interned and its record to be appended (``PartialAggregate``).
///
/// Batching lets the record path ask for the hash-table slots an event's
/// identities will probe in the interner several events before it needs
/// them, instead of waiting for each cache miss in turn.
struct PendingEvent {
    /// Complete except for the identity ids.
    var record: EventRecord
    var copy: EventCopy
    var device: PendingIdentity
    var profile: PendingIdentity
    var customerUser: PendingIdentity
    /// The store's shard for the event's key (``EventStore/shard(of:)``), last:
    /// it fits in the padding (88 bytes either way).
    var shard: UInt8
}

/// An identity awaiting its id: its key, or a mark that it is absent or the
/// same as this role's previous identity (in line order).
struct PendingIdentity {
    var key: IdentityTable.Key
    var state: State

    enum State: UInt8 {
        /// The event has no such identity.
        case absent
        /// The bytes equal those of this role's previous identity, so the id
        /// is that one's: no lookup at all.
        case sameAsPrevious
        case lookup
    }

    static var none: PendingIdentity { PendingIdentity(key: .zero, state: .absent) }

    var isPresent: Bool { state != .absent }
    var needsLookup: Bool { state == .lookup }
}
