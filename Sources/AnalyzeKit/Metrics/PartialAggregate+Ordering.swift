extension PartialAggregate {
    /// Compares two events by the SPEC's ordering key: instant, then
    /// `event_id` bytes. Both events must have an extra or a bare id
    /// (identity events and quiz answers).
    func orderedBefore(_ a: OrderingKey, _ b: OrderingKey) -> Bool {
        if a.seconds != b.seconds { return a.seconds < b.seconds }
        if a.nanoseconds != b.nanoseconds { return a.nanoseconds < b.nanoseconds }
        let x = packedEventID(of: a), y = packedEventID(of: b)
        if let x, let y, x.kind == y.kind { return BareID.precedes(x.bytes, y.bytes) }
        // Written out as text. The closures read the tables through readers:
        // capturing `self` made them copy the partial, a retain and a release
        // per table, at each such tie.
        let extras = self.extras.reader, eventIDs = self.eventIDs.reader
        return Self.withEventID(of: a, packed: x, extras: extras, eventIDs: eventIDs) { first in
            Self.withEventID(of: b, packed: y, extras: extras, eventIDs: eventIDs) { second in
                RawBytes.precedes(first, second)
            }
        }
    }

    /// An event's `event_id` as packed, when it is (``BareID``).
    @inline(__always)
    private func packedEventID(of key: OrderingKey) -> (bytes: (UInt64, UInt64), kind: BareID.Kind)? {
        if key.hasBareID {
            let (index, kind) = BareID.indexAndKind(inExtra: key.extra)
            return (bareIDs[index].bytes, kind)
        }
        let extra = extras[Int(key.extra)]
        guard let kind = extra.packedKind else { return nil }
        return (unsafeBitCast(extra.id, to: (UInt64, UInt64).self), kind)
    }

    /// Calls `body` with the `event_id` bytes of an event, as they were in
    /// the input: `packed` (its ``packedEventID(of:)``) written out again, or
    /// its bytes in `eventIDs`.
    @inline(__always)
    private static func withEventID<R>(
        of key: OrderingKey, packed: (bytes: (UInt64, UInt64), kind: BareID.Kind)?,
        extras: SegmentedArray<EventExtra>.Reader, eventIDs: SegmentedArray<UInt8>.Reader,
        _ body: (UnsafeRawBufferPointer) -> R
    ) -> R {
        if let packed { return BareID.withText(of: packed.bytes, kind: packed.kind, body) }
        let extra = extras[Int(key.extra)]
        return body(UnsafeRawBufferPointer(eventIDs.buffer(from: extra.idOffset, count: Int(extra.idCount))))
    }
}
