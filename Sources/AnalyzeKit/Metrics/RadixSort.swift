/// Grouping by integer keys, for the metric tables.
///
/// The tables need their events grouped by an identity or a question, then
/// ordered by the ordering key inside each group. A comparison sort over all
/// events pays log₂ n closure calls per event (about 20 at a million); a
/// radix sort of the keys places each event with a couple of sequential
/// passes, and the groups left to order by time are a handful of events each.
enum RadixSort {
    private static let digitBits = 11
    private static let digitMask = (1 << digitBits) - 1

    /// The permutation that orders `keys` ascending, equal keys in their
    /// original order: element `i` of the result is the index of the `i`th
    /// smallest key.
    ///
    /// Performance: a least-significant-digit radix sort, 11 bits per pass
    /// and only as many passes as the largest key needs (two for keys below
    /// 2²²). Each pass reads one buffer of 16-byte (key, index) items in order
    /// and writes another through 2 048 running cursors, so it streams
    /// instead of scattering at random; 32 bytes per key while it runs.
    static func order(of keys: [UInt64]) -> [UInt32] {
        precondition(keys.count <= Int(UInt32.max), "too many keys to order")
        struct Item { var key: UInt64; var index: UInt32 }
        var items = keys.enumerated().map { Item(key: $1, index: UInt32(truncatingIfNeeded: $0)) }
        let largest = keys.max() ?? 0
        var shift = 0
        var other = [Item](repeating: Item(key: 0, index: 0), count: items.count)
        var next = [Int](repeating: 0, count: digitMask + 1)
        while shift < 64 && largest >> UInt64(shift) != 0 {
            for i in next.indices { next[i] = 0 }
            for item in items { next[Int(truncatingIfNeeded: item.key >> UInt64(shift)) & digitMask] += 1 }
            var start = 0
            for i in next.indices { (next[i], start) = (start, start + next[i]) }
            other.withUnsafeMutableBufferPointer { target in
                for item in items {
                    let digit = Int(truncatingIfNeeded: item.key >> UInt64(shift)) & digitMask
                    target[next[digit]] = item
                    next[digit] += 1
                }
            }
            swap(&items, &other)
            shift += digitBits
        }
        return items.map(\.index)
    }

    /// Reorders `values` so that their keys ascend (stable; see ``order(of:)``).
    static func sort<T>(_ values: inout [T], by key: (T) -> UInt64) {
        guard values.count > 1 else { return }
        let order = order(of: values.map(key))
        values = order.map { values[Int($0)] }
    }

    /// Sorts each run of adjacent values that `sameGroup` puts together with
    /// `areInIncreasingOrder`, leaving the runs where they are.
    static func sortRuns<T>(
        _ values: inout [T], sameGroup: (T, T) -> Bool, by areInIncreasingOrder: (T, T) -> Bool
    ) {
        var start = 0
        while start < values.count {
            var end = start + 1
            while end < values.count && sameGroup(values[start], values[end]) { end += 1 }
            if end - start > 1 { values[start..<end].sort(by: areInIncreasingOrder) }
            start = end
        }
    }
}
