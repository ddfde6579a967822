/// Grouping by integer keys, for the metric tables.
///
/// The quiz table needs its answers grouped by question and respondent, and
/// the tables order each group by the ordering key. A comparison sort over all
/// events pays log₂ n closure calls per event (about 20 at a million); a
/// radix sort of the keys places each event with a couple of passes, and the
/// groups left to order by time are a handful of events each.
enum RadixSort {
    private static let digitBits = 11
    /// Below this many values, a group is finished by insertion sort.
    private static let smallGroup = 24

    /// Reorders `values` so that their keys ascend. Values with equal keys
    /// end up adjacent in no particular order: callers order each group by a
    /// total order of their own (``sortRuns(_:sameGroup:by:)``), so the result
    /// does not depend on where values started.
    ///
    /// Performance: an in-place most-significant-digit radix sort (American
    /// flag sort), 11 bits per pass, only as many as the largest key needs,
    /// with insertion sort for groups of up to 24 values and the standard
    /// sort by key for groups with fewer than an eighth as many values as a
    /// pass has buckets (so a few values never pay for 2¹¹ buckets a pass).
    /// It takes no memory beyond the values, but for the standard sort's own
    /// buffer on a group of under 256 values (a stable radix sort needs a
    /// second buffer, and keys beside it).
    /// `key` is called a few times per value per pass, so it should be cheap.
    static func group<T>(_ values: inout [T], by key: (T) -> UInt64) {
        guard values.count > 1 else { return }
        var largest: UInt64 = 0
        for value in values { largest = max(largest, key(value)) }
        let bits = UInt64.bitWidth - largest.leadingZeroBitCount
        values.withUnsafeMutableBufferPointer { buffer in
            group(buffer, below: bits, by: key)
        }
    }

    /// The top `digitBits` (or fewer) of keys below 2^`bits`: one pass's digit.
    private struct Digit {
        /// The bits below the digit, left for the next pass.
        let shift: Int
        private let mask: UInt64
        /// How many values the digit takes.
        let radix: Int

        init(below bits: Int) {
            let width = min(RadixSort.digitBits, bits)
            shift = bits - width
            mask = UInt64(1) << UInt64(width) - 1
            radix = 1 << width
        }

        @inline(__always)
        func callAsFunction(_ key: UInt64) -> Int { Int(truncatingIfNeeded: (key &>> UInt64(shift)) & mask) }
    }

    /// Groups `buffer`, whose keys agree above bit `bits`, by bits `0..<bits`.
    private static func group<T>(_ buffer: UnsafeMutableBufferPointer<T>, below bits: Int, by key: (T) -> UInt64) {
        guard bits > 0 && buffer.count > 1 else { return }
        if buffer.count <= smallGroup {
            insertionSort(buffer, by: key)
            return
        }
        let digit = Digit(below: bits)
        // A pass clears, counts and walks all of its digit's buckets (up to
        // 2¹¹) whatever the group's size, and keys far apart (answers a
        // second and centuries apart) take several passes for a few values:
        // a group with fewer than an eighth as many values as buckets is
        // sorted by key instead, about log₂ n ≤ 8 comparisons per value.
        if buffer.count * 8 < digit.radix {
            var buffer = buffer
            buffer.sort { key($0) < key($1) }
            return
        }
        withUnsafeTemporaryAllocation(of: Int.self, capacity: 2 * digit.radix) { scratch in
            // heads[d]: where the next value of digit d goes; ends[d]: where
            // digit d's bucket ends (from the counts per digit).
            let heads = UnsafeMutableBufferPointer(rebasing: scratch[0..<digit.radix])
            let ends = UnsafeMutableBufferPointer(rebasing: scratch[digit.radix...])
            heads.initialize(repeating: 0)
            for value in buffer { heads[digit(key(value))] += 1 }
            var start = 0
            for d in 0..<digit.radix {
                let n = heads[d]
                heads[d] = start
                start += n
                ends[d] = start
            }
            // Each value is carried along a cycle of displaced values until a
            // value of bucket d is left for bucket d's next place.
            for d in 0..<digit.radix {
                while heads[d] < ends[d] {
                    var value = buffer[heads[d]]
                    var target = digit(key(value))
                    while target != d {
                        swap(&value, &buffer[heads[target]])
                        heads[target] += 1
                        target = digit(key(value))
                    }
                    buffer[heads[d]] = value
                    heads[d] += 1
                }
            }
            // heads[d] is now ends[d]: each bucket spans the previous end to
            // its own. Each is grouped by the bits below this digit.
            var bucketStart = 0
            for bucketEnd in ends {
                if bucketEnd - bucketStart > 1 {
                    group(UnsafeMutableBufferPointer(rebasing: buffer[bucketStart..<bucketEnd]), below: digit.shift, by: key)
                }
                bucketStart = bucketEnd
            }
        }
    }

    private static func insertionSort<T>(_ buffer: UnsafeMutableBufferPointer<T>, by key: (T) -> UInt64) {
        for i in 1..<buffer.count {
            let value = buffer[i]
            let k = key(value)
            var j = i
            while j > 0 && key(buffer[j - 1]) > k {
                buffer[j] = buffer[j - 1]
                j -= 1
            }
            buffer[j] = value
        }
    }

    /// Sorts each run of adjacent values that `sameGroup` puts together with
    /// `areInIncreasingOrder`, leaving the runs where they are.
    ///
    /// Performance: most runs are a device's or a respondent's few events,
    /// so runs of up to ``smallGroup`` values are insertion-sorted in place
    /// (the standard sort's setup per run cost more than the sorting); longer
    /// ones use the standard sort.
    static func sortRuns<T>(
        _ values: inout [T], sameGroup: (T, T) -> Bool, by areInIncreasingOrder: (T, T) -> Bool
    ) {
        values.withUnsafeMutableBufferPointer { buffer in
            let count = buffer.count
            var start = 0
            while start < count {
                var end = start + 1
                while end < count && sameGroup(buffer[start], buffer[end]) { end += 1 }
                if end - start > smallGroup {
                    var run = UnsafeMutableBufferPointer(rebasing: buffer[start..<end])
                    run.sort(by: areInIncreasingOrder)
                } else if end - start > 1 {
                    for i in (start + 1)..<end {
                        let value = buffer[i]
                        var j = i
                        while j > start && areInIncreasingOrder(value, buffer[j - 1]) {
                            buffer[j] = buffer[j - 1]
                            j -= 1
                        }
                        buffer[j] = value
                    }
                }
                start = end
            }
        }
    }
}
