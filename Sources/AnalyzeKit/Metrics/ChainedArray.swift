import CSupport

/// An append-only array that can take in another one without copying it:
/// ``adopt(_:)`` chains the other's storage after its own, and indices into
/// the other shift by this array's count.
///
/// Partials keep their per-event side tables (extras, answers, options,
/// event-id bytes) in these, so a merge renumbers the other partial's entries
/// in place and chains them on: no copy, and no moment where the old and the
/// grown table are both held (a plain array's `+=` briefly needs both).
///
/// Performance: while there is one segment (a worker's partial), access is a
/// plain array access behind one compare; after merges, a binary search over
/// the segments' starts (one segment per merged partial).
struct ChainedArray<Element> {
    private var segments: [[Element]] = [[]]
    /// The index of each segment's first element.
    private var starts: [Int] = [0]
    private(set) var count = 0

    init() {}

    mutating func append(_ element: Element) {
        segments[segments.count - 1].append(element)
        count += 1
    }

    mutating func append(contentsOf elements: UnsafeBufferPointer<Element>) {
        segments[segments.count - 1].append(contentsOf: elements)
        count += elements.count
    }

    /// Chains `other`'s elements after this array's; an element at index `i`
    /// of `other` is at `i + count` (the count before) here.
    mutating func adopt(_ other: consuming ChainedArray<Element>) {
        let other = other
        for (segment, start) in zip(other.segments, other.starts) where !segment.isEmpty {
            if segments.count == 1 && segments[0].isEmpty {
                segments[0] = segment
            } else {
                segments.append(segment)
                starts.append(count + start)
            }
        }
        count += other.count
    }

    /// Changes every element in place (`body` gets each in index order).
    mutating func updateEach(_ body: (inout Element) -> Void) {
        for s in segments.indices {
            segments[s].withUnsafeMutableBufferPointer { buffer in
                for i in buffer.indices { body(&buffer[i]) }
            }
        }
    }

    @inline(__always)
    private func segment(of index: Int) -> Int {
        if starts.count == 1 { return 0 }
        // The last segment whose start is at most `index`.
        var low = 0, high = starts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if starts[middle] <= index { low = middle } else { high = middle - 1 }
        }
        return low
    }

    subscript(index: Int) -> Element {
        let s = segment(of: index)
        return segments[s][index - starts[s]]
    }

    /// Starts loading the element at `index` into the cache.
    @inline(__always)
    func prefetch(_ index: Int) {
        let s = segment(of: index)
        segments[s].withUnsafeBufferPointer { analyze_prefetch($0.baseAddress! + (index - starts[s])) }
    }

    /// Calls `body` with the `count` elements from `start`, which must have
    /// been appended to one array before any adoption (an answer's options,
    /// an event id's bytes).
    func withContiguous<R>(from start: Int, count: Int, _ body: (UnsafeBufferPointer<Element>) -> R) -> R {
        let s = segment(of: start)
        let local = start - starts[s]
        precondition(local + count <= segments[s].count, "a range across two chained arrays")
        return segments[s].withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[local..<(local + count)])) }
    }
}
