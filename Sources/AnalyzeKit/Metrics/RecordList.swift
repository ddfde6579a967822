/// An append-only list of ``EventRecord``s stored in fixed-size segments,
/// addressed by stable handles.
///
/// A plain array grows by reallocating: every growth copies all records so far
/// and touches fresh pages for them, so a shard that ends with N records has
/// copied and faulted in several times N. Here a segment is never moved:
/// appending costs one store, and ``adopt(_:)`` takes another list's segments
/// as they are, so merging two stores copies no record.
///
/// A record's ``Handle`` is its segment's number shifted left by
/// ``segmentShift``, plus its offset in the segment. Handles are not dense
/// (an adopted list starts at a new segment, leaving the previous last
/// segment partly filled), which is why they are handles and not indices.
///
/// Performance: access by handle is a shift, a mask and two loads. The first
/// segment grows like an array (small inputs stay small); later ones are
/// allocated whole, 16 384 records (1 MiB, so they come from `mmap` and go
/// back to the system when freed).
struct RecordList {
    typealias Handle = Int

    static let segmentShift = 14
    static let segmentCapacity = 1 << segmentShift
    private static let offsetMask = segmentCapacity - 1
    /// A handle plus one must fit in 32 bits (``EventShard``'s slots).
    private static let maximumSegments = (1 << (32 - segmentShift)) - 1

    private var segments: [[EventRecord]] = []
    /// Records appended or adopted.
    private(set) var count = 0

    subscript(handle: Handle) -> EventRecord {
        get { segments[handle >> Self.segmentShift][handle & Self.offsetMask] }
        set { segments[handle >> Self.segmentShift][handle & Self.offsetMask] = newValue }
    }

    /// Appends `record`; returns its handle.
    @discardableResult
    mutating func append(_ record: EventRecord) -> Handle {
        if segments.isEmpty || segments[segments.count - 1].count == Self.segmentCapacity {
            precondition(segments.count < Self.maximumSegments, "too many records in one shard")
            var segment: [EventRecord] = []
            if !segments.isEmpty { segment.reserveCapacity(Self.segmentCapacity) }
            segments.append(segment)
        }
        let last = segments.count - 1
        let handle = last << Self.segmentShift | segments[last].count
        segments[last].append(record)
        count += 1
        return handle
    }

    /// Chains `other`'s segments after this list's, without copying them, and
    /// returns the number of the first adopted segment: a record of `other`
    /// at handle `h` is now at `h + (first << segmentShift)`.
    mutating func adopt(_ other: consuming RecordList) -> Int {
        let other = other
        let first = segments.count
        precondition(first + other.segments.count <= Self.maximumSegments, "too many records in one shard")
        segments.append(contentsOf: other.segments)
        count += other.count
        return first
    }

    /// The handles of the records in segments `first...`, one range per segment, in order.
    func handleRanges(fromSegment first: Int) -> [Range<Handle>] {
        (first..<segments.count).map { s in
            let start = s << Self.segmentShift
            return start..<(start + segments[s].count)
        }
    }

    /// Changes every record in place, in order.
    mutating func updateEach(_ body: (inout EventRecord) -> Void) {
        for s in segments.indices {
            segments[s].withUnsafeMutableBufferPointer { buffer in
                for i in buffer.indices { body(&buffer[i]) }
            }
        }
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
