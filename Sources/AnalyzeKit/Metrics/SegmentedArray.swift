import CSupport

/// An append-only array in fixed-size segments, addressed by stable handles,
/// that can take in another one without copying it.
///
/// Partials keep their event records (``EventShard``) and per-event side
/// tables (extras, answers, options, event-id bytes) in these:
/// * growing never copies: a full segment stays where it is and a new one is
///   started (a plain array's doubling copies everything so far and faults
///   in fresh pages for the copy — about twice the final size in all);
/// * a merge renumbers the other partial's entries in place and
///   ``adopt(_:)`` chains its segments on: no copy either, and no moment
///   where an old and a grown table are both held.
///
/// A ``Handle`` is a segment number shifted left by ``shift`` plus an offset
/// in the segment; handles are not dense (a run that does not fit in the
/// current segment starts the next one, and adopted segments start after the
/// last one), so they are handles, not indices.
///
/// Performance: access is a shift, a mask and two loads. Segments hold about
/// 1 MiB (a power-of-two number of elements); their memory is reserved whole
/// but, coming from `mmap`, only pages written to cost memory. A run longer
/// than a segment gets a segment of its own, so a run is always contiguous.
struct SegmentedArray<Element> {
    typealias Handle = Int

    /// log₂ of the elements per segment: 1 MiB of them, rounded down to a
    /// power of two.
    let shift: Int
    private var segments: [[Element]] = []
    /// Elements appended or adopted.
    private(set) var count = 0

    init() {
        var shift = 20
        while shift > 0 && (1 << shift) * MemoryLayout<Element>.stride > 1 << 20 { shift -= 1 }
        self.shift = shift
    }

    private var capacity: Int { 1 << shift }

    /// The handle the next ``adopt(_:)`` adds to the adopted array's handles.
    var adoptionBase: Handle { segments.count << shift }

    /// Makes room for `n` more elements in one contiguous run: in the last
    /// segment if they fit below its capacity (so every handle's offset fits
    /// in `shift` bits), else in a new segment, sized for the run when that
    /// is longer than a segment.
    @inline(__always)
    private mutating func ensureRoom(for n: Int) {
        if !segments.isEmpty && segments[segments.count - 1].count + n <= capacity { return }
        var segment: [Element] = []
        segment.reserveCapacity(Swift.max(n, capacity))
        segments.append(segment)
    }

    /// Appends `element`; returns its handle.
    @discardableResult
    mutating func append(_ element: Element) -> Handle {
        ensureRoom(for: 1)
        let last = segments.count - 1
        let handle = last << shift | segments[last].count
        segments[last].append(element)
        count += 1
        return handle
    }

    /// Appends `elements` as one contiguous run; returns the handle of its
    /// first element (read the run back with ``withContiguous(from:count:_:)``).
    @discardableResult
    mutating func append(contentsOf elements: UnsafeBufferPointer<Element>) -> Handle {
        ensureRoom(for: elements.count)
        let last = segments.count - 1
        let handle = last << shift | segments[last].count
        segments[last].append(contentsOf: elements)
        count += elements.count
        return handle
    }

    /// Chains `other`'s segments after this array's: a handle `h` of `other`
    /// is `h + adoptionBase` here (`adoptionBase` as it was before).
    mutating func adopt(_ other: consuming SegmentedArray<Element>) {
        let other = other
        segments.append(contentsOf: other.segments)
        count += other.count
    }

    /// Changes every element in place (in handle order).
    mutating func updateEach(_ body: (inout Element) -> Void) {
        for s in segments.indices {
            segments[s].withUnsafeMutableBufferPointer { buffer in
                for i in buffer.indices { body(&buffer[i]) }
            }
        }
    }

    subscript(handle: Handle) -> Element {
        get { segments[handle >> shift][handle & (capacity - 1)] }
        set { segments[handle >> shift][handle & (capacity - 1)] = newValue }
    }

    /// The handles of the elements from `base` (an ``adoptionBase``) on, one
    /// range per segment, in order.
    func handleRanges(from base: Handle) -> [Range<Handle>] {
        ((base >> shift)..<segments.count).map { s in
            let start = s << shift
            return start..<(start + segments[s].count)
        }
    }

    /// Calls `body` with each segment's elements, in order.
    ///
    /// Performance: a loop over the buffers runs at memory speed. (Records were
    /// once a `Sequence` over joined segments; that nested flattening iterator
    /// cost tens of nanoseconds per element.)
    func forEachSegment(_ body: (UnsafeBufferPointer<Element>) -> Void) {
        for segment in segments { segment.withUnsafeBufferPointer(body) }
    }

    /// Starts loading the element at `handle` into the cache.
    @inline(__always)
    func prefetch(_ handle: Handle) {
        segments[handle >> shift].withUnsafeBufferPointer {
            analyze_prefetch($0.baseAddress! + (handle & (capacity - 1)))
        }
    }

    /// Calls `body` with the run of `count` elements appended at `start` by
    /// ``append(contentsOf:)``.
    func withContiguous<R>(from start: Handle, count: Int, _ body: (UnsafeBufferPointer<Element>) -> R) -> R {
        segments[start >> shift].withUnsafeBufferPointer { segment in
            let offset = start & (capacity - 1)
            return body(UnsafeBufferPointer(rebasing: segment[offset..<(offset + count)]))
        }
    }
}
