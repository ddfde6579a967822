/// An append-only list of ``EventRecord``s stored in fixed-size segments.
///
/// A plain array grows by reallocating: every growth copies all records so far
/// and touches fresh pages for them, so a shard that ends with N records has
/// copied and faulted in several times N. Here a full segment is never moved:
/// appending costs one store, and memory is what is held plus at most one
/// partly filled segment.
///
/// Performance: index access is a shift, a mask and two loads. The first
/// segment grows like an array (small inputs stay small); later ones are
/// allocated whole, 16 384 records (1 MiB, so they come from `mmap` and go
/// back to the system when freed).
struct RecordList {
    static let segmentShift = 14
    static let segmentCapacity = 1 << segmentShift
    private static let indexMask = segmentCapacity - 1

    private var segments: [[EventRecord]] = []
    private(set) var count = 0

    subscript(index: Int) -> EventRecord {
        get { segments[index >> Self.segmentShift][index & Self.indexMask] }
        set { segments[index >> Self.segmentShift][index & Self.indexMask] = newValue }
    }

    mutating func append(_ record: EventRecord) {
        if count & Self.indexMask == 0 && count >> Self.segmentShift == segments.count {
            var segment: [EventRecord] = []
            if !segments.isEmpty { segment.reserveCapacity(Self.segmentCapacity) }
            segments.append(segment)
        }
        segments[segments.count - 1].append(record)
        count += 1
    }

    /// Calls `body` with each segment's records, in order.
    ///
    /// Performance: a loop over the buffers runs at memory speed. (The list was
    /// once a `Sequence` over its joined segments; that nested flattening
    /// iterator cost tens of nanoseconds per record.)
    func forEachSegment(_ body: (UnsafeBufferPointer<EventRecord>) -> Void) {
        for segment in segments { segment.withUnsafeBufferPointer(body) }
    }
}
