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
}

/// Identity bytes awaiting interning: in the chunk being consumed (`pointer`),
/// or, when they were decoded from escapes, at `offset` in the batch's own bytes.
struct PendingIdentity {
    var pointer: UnsafeRawPointer?
    var offset: Int
    /// -1 when the event has no such identity.
    var count: Int
    /// ``Interner/hash(_:)`` of the bytes (0 when `sameAsPrevious`).
    var hash: UInt64
    /// The bytes equal those of this role's previous identity (in line order),
    /// so the id is that one's: no lookup at all.
    var sameAsPrevious: Bool

    static var none: PendingIdentity { PendingIdentity(pointer: nil, offset: 0, count: -1, hash: 0, sameAsPrevious: false) }

    var isPresent: Bool { count >= 0 }
    var needsLookup: Bool { count >= 0 && !sameAsPrevious }
}
