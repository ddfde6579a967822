/// An event's place in the SPEC's ordering key: its instant, and where its
/// `event_id` bytes are kept (for ties): a handle in `PartialAggregate.extras`,
/// or, when `hasBareID`, an index in `bareIDs` and a kind, as in
/// ``EventRecord/extra``.
struct OrderingKey {
    var seconds: Int64
    var nanoseconds: UInt32
    var extra: Int32
    var hasBareID: Bool
}
