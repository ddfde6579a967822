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
/// It is a value: copies share their segments until one of them changes
/// (copy on write, as `Array` does).
///
/// Performance: segments hold about 1 MiB (a power-of-two number of
/// elements); their memory is reserved whole but, coming from `mmap`, only
/// pages written to cost memory. A run longer than a segment gets a segment
/// of its own, so a run is always contiguous. The array keeps raw pointers to
/// its segment table and its last segment, so access is a shift, a mask and
/// two loads, and an append is a uniqueness check and a store. (An array of
/// arrays paid two uniqueness checks, two bounds checks and a capacity check
/// per append: appending a record and its copy to a shard took about 270
/// instructions, now about 55.)
struct SegmentedArray<Element: BitwiseCopyable> {
    typealias Handle = Int

    /// log₂ of the elements per segment: 1 MiB of them, rounded down to a
    /// power of two.
    ///
    /// Performance: always shifted by with `&<<` / `&>>`. Swift's `<<` and
    /// `>>` by an amount not known at compile time handle amounts of 64 and
    /// more and negative ones: five to eight instructions and two branches
    /// per shift, on every append and read (about 1 % of all instructions).
    let shift: Int
    private var storage = Storage()
    /// `storage.table`, cached so that reads touch no class property.
    private var table: UnsafeMutablePointer<UnsafeMutablePointer<Element>>?
    /// The last segment, how many elements it holds and can hold (the
    /// storage's `lengths` entry of the last segment is not kept current).
    private var tail: UnsafeMutablePointer<Element>?
    private var tailCount = 0
    private var tailCapacity = 0
    /// Elements appended or adopted.
    private(set) var count = 0

    init() {
        var shift = 20
        while shift > 0 && (1 << shift) * MemoryLayout<Element>.stride > 1 << 20 { shift -= 1 }
        self.shift = shift
    }

    /// An array of `1 << shift` elements per segment (for arrays whose
    /// handles must match another's).
    init(shift: Int) {
        self.shift = shift
    }

    private var capacity: Int { 1 &<< shift }

    /// The handle the next ``adopt(_:)`` adds to the adopted array's handles.
    var adoptionBase: Handle { storage.segmentCount &<< shift }

    /// The last segment's first handle plus its length (0 with no segment):
    /// above every element's handle, at least every run's start (an empty
    /// run's may equal it), and, with elements appended one at a time, one
    /// past the last. Handles skip what a segment left unfilled, so this may pass
    /// ``count`` (a bound on a packed field holding handles must use it).
    var handleEnd: Handle {
        storage.segmentCount == 0 ? 0 : (storage.segmentCount - 1) &<< shift + tailCount
    }

    /// ``handleEnd`` once `other` is adopted (``adopt(_:)``).
    func handleEnd(adopting other: borrowing SegmentedArray<Element>) -> Handle {
        other.storage.segmentCount == 0 ? handleEnd : adoptionBase + other.handleEnd
    }

    /// The handle ``append(contentsOf:)`` would return for a run of `n`
    /// elements now (`n` = 1: the one ``append(_:)`` would return).
    func startOfNextRun(count n: Int) -> Handle {
        tail != nil && tailCount + Swift.max(n, 1) <= tailCapacity
            ? (storage.segmentCount - 1) &<< shift | tailCount : storage.segmentCount &<< shift
    }

    /// Makes `storage` this array's own (copying the segments if another
    /// array shares them) before a change.
    @inline(__always)
    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) { copyStorage() }
    }

    private mutating func copyStorage() {
        storage.setLength(tailCount, ofLast: tail != nil)
        storage = storage.copy()
        syncCache()
    }

    /// Reloads the cached pointers from `storage` (after it changed).
    private mutating func syncCache() {
        table = storage.table
        if storage.segmentCount > 0 {
            tail = storage.table![storage.segmentCount - 1]
            tailCount = storage.lengths![storage.segmentCount - 1]
            tailCapacity = storage.capacities![storage.segmentCount - 1]
        } else {
            (tail, tailCount, tailCapacity) = (nil, 0, 0)
        }
    }

    /// Makes room for `n` more elements in one contiguous run: in the last
    /// segment if they fit below its capacity (so every handle's offset fits
    /// in `shift` bits), else in a new segment, sized for the run when that
    /// is longer than a segment.
    @inline(__always)
    private mutating func ensureRoom(for n: Int) {
        if tail != nil && tailCount + n <= tailCapacity { return }
        startSegment(capacity: Swift.max(n, capacity))
    }

    private mutating func startSegment(capacity: Int) {
        storage.setLength(tailCount, ofLast: tail != nil)
        storage.append(UnsafeMutablePointer<Element>.allocate(capacity: capacity), length: 0, capacity: capacity)
        syncCache()
    }

    /// Appends `element`; returns its handle.
    @discardableResult
    @inline(__always)
    mutating func append(_ element: Element) -> Handle {
        makeUnique()
        return appendAssumingUnique(element)
    }

    /// Makes the segments this array's own (copying them if another array
    /// shares them), so that ``appendAssumingUnique(_:)`` may follow.
    mutating func makeUniqueForAppends() {
        makeUnique()
    }

    /// ``append(_:)`` without its uniqueness check (a call into the runtime):
    /// only after ``makeUniqueForAppends()``, with no copy of this array made
    /// since, so that batches of appends check once.
    @discardableResult
    @inline(__always)
    mutating func appendAssumingUnique(_ element: Element) -> Handle {
        assert(isKnownUniquelyReferenced(&storage), "appendAssumingUnique(_:) on shared segments")
        ensureRoom(for: 1)
        let offset = tailCount
        (tail.unsafelyUnwrapped + offset).initialize(to: element)
        tailCount = offset + 1
        count += 1
        return (storage.segmentCount - 1) &<< shift | offset
    }

    /// Appends `elements` as one contiguous run; returns the handle of its
    /// first element (read the run back with ``withContiguous(from:count:_:)``).
    /// An empty run's handle, too, lies inside a segment: after a full last
    /// segment it starts the next one (its offset would otherwise carry into
    /// the segment bits, naming a segment that does not exist).
    @discardableResult
    mutating func append(contentsOf elements: UnsafeBufferPointer<Element>) -> Handle {
        makeUnique()
        ensureRoom(for: Swift.max(elements.count, 1))
        let offset = tailCount
        if let base = elements.baseAddress {
            (tail.unsafelyUnwrapped + offset).initialize(from: base, count: elements.count)
        }
        tailCount = offset + elements.count
        count += elements.count
        return (storage.segmentCount - 1) &<< shift | offset
    }

    /// Chains `other`'s segments after this array's: a handle `h` of `other`
    /// is `h + adoptionBase` here (`adoptionBase` as it was before).
    mutating func adopt(_ other: consuming SegmentedArray<Element>) {
        // Pass the array itself (`consume`), not a copy: a copy still held
        // elsewhere makes the segments shared, and they are then copied.
        other.makeUnique()
        other.storage.setLength(other.tailCount, ofLast: other.tail != nil)
        makeUnique()
        storage.setLength(tailCount, ofLast: tail != nil)
        storage.take(other.storage)
        count += other.count
        syncCache()
    }

    /// Changes every element in place (in handle order).
    @inline(__always)
    mutating func updateEach(_ body: (inout Element) -> Void) {
        updateEachWithHandle { _, element in body(&element) }
    }

    /// How many elements segment `s` holds.
    @inline(__always)
    private func length(ofSegment s: Int) -> Int {
        s == storage.segmentCount - 1 ? tailCount : storage.lengths.unsafelyUnwrapped[s]
    }

    @inline(__always)
    private func address(_ handle: Handle) -> UnsafeMutablePointer<Element> {
        reader.address(handle)
    }

    /// The element at `handle` (a handle this array returned: not checked).
    subscript(handle: Handle) -> Element {
        @inline(__always) get { address(handle).pointee }
        @inline(__always) set {
            makeUnique()
            address(handle).pointee = newValue
        }
    }

    /// The handles of the elements from `base` (an ``adoptionBase``) on, one
    /// range per segment, in order.
    func handleRanges(from base: Handle) -> [Range<Handle>] {
        ((base &>> shift)..<storage.segmentCount).map { s in
            let start = s &<< shift
            return start..<(start + length(ofSegment: s))
        }
    }

    /// The elements at `range`, which must lie within one of
    /// ``handleRanges(from:)``'s ranges (one segment); valid until the array
    /// next changes.
    @inline(__always)
    func elements(in range: Range<Handle>) -> UnsafeBufferPointer<Element> {
        UnsafeBufferPointer(start: address(range.lowerBound), count: range.count)
    }

    /// Changes every element in place, in handle order, with its handle.
    mutating func updateEachWithHandle(_ body: (Handle, inout Element) -> Void) {
        makeUnique()
        for s in 0..<storage.segmentCount {
            let base = table.unsafelyUnwrapped[s]
            for i in 0..<length(ofSegment: s) { body(s &<< shift | i, &base[i]) }
        }
    }

    /// Calls `body` with each segment's elements, in order.
    ///
    /// Performance: a loop over the buffers runs at memory speed. (Records were
    /// once a `Sequence` over joined segments; that nested flattening iterator
    /// cost tens of nanoseconds per element.)
    func forEachSegment(_ body: (UnsafeBufferPointer<Element>) -> Void) {
        for s in 0..<storage.segmentCount {
            body(UnsafeBufferPointer(start: table.unsafelyUnwrapped[s], count: length(ofSegment: s)))
        }
    }

    /// Starts loading the element at `handle` into the cache.
    @inline(__always)
    func prefetch(_ handle: Handle) {
        analyze_prefetch(address(handle))
    }

    /// A read-only view of the elements: two words, so passing it copies no
    /// array state and counts no reference. Valid while the array is not
    /// appended to, adopted into or copied; elements changed in place
    /// through the array show through it.
    ///
    /// Performance: a non-mutating method called from a mutating one is
    /// handed a copy of `self` unless it is inlined; passing readers instead
    /// of the struct that holds the arrays avoids that copy (settling a shard
    /// copied its 160 bytes once per record before).
    struct Reader {
        fileprivate let table: UnsafeMutablePointer<UnsafeMutablePointer<Element>>?
        fileprivate let shift: Int

        /// Where the element at `handle` is: a shift, a mask and two loads.
        @inline(__always)
        fileprivate func address(_ handle: Handle) -> UnsafeMutablePointer<Element> {
            table.unsafelyUnwrapped[handle &>> shift] + (handle & ((1 &<< shift) - 1))
        }

        /// The element at `handle` (a handle the array returned: not checked).
        @inline(__always)
        subscript(handle: Handle) -> Element { address(handle).pointee }

        /// The run of `count` elements appended at `start` by
        /// ``SegmentedArray/append(contentsOf:)`` (a run is never split).
        @inline(__always)
        func buffer(from start: Handle, count: Int) -> UnsafeBufferPointer<Element> {
            UnsafeBufferPointer(start: address(start), count: count)
        }
    }

    /// A ``Reader`` over the elements as they are now.
    var reader: Reader { Reader(table: table, shift: shift) }

    /// Calls `body` with the run of `count` elements appended at `start` by
    /// ``append(contentsOf:)``.
    func withContiguous<R>(from start: Handle, count: Int, _ body: (UnsafeBufferPointer<Element>) -> R) -> R {
        body(UnsafeBufferPointer(start: address(start), count: count))
    }
}

extension SegmentedArray {
    /// The segments: a table of their addresses, lengths and capacities,
    /// owned by one or more arrays (copy on write). The length of the last
    /// segment is only current after `setLength(_:ofLast:)`.
    fileprivate final class Storage {
        private(set) var table: UnsafeMutablePointer<UnsafeMutablePointer<Element>>?
        private(set) var lengths: UnsafeMutablePointer<Int>?
        private(set) var capacities: UnsafeMutablePointer<Int>?
        private(set) var segmentCount = 0
        private var tableCapacity = 0

        deinit {
            for s in 0..<segmentCount { table![s].deallocate() }
            table?.deallocate()
            lengths?.deallocate()
            capacities?.deallocate()
        }

        func setLength(_ length: Int, ofLast hasLast: Bool) {
            if hasLast { lengths![segmentCount - 1] = length }
        }

        func append(_ segment: UnsafeMutablePointer<Element>, length: Int, capacity: Int) {
            if segmentCount == tableCapacity { growTable(to: Swift.max(16, 2 * tableCapacity)) }
            table![segmentCount] = segment
            lengths![segmentCount] = length
            capacities![segmentCount] = capacity
            segmentCount += 1
        }

        private func growTable(to newCapacity: Int) {
            let newTable = UnsafeMutablePointer<UnsafeMutablePointer<Element>>.allocate(capacity: newCapacity)
            let newLengths = UnsafeMutablePointer<Int>.allocate(capacity: newCapacity)
            let newCapacities = UnsafeMutablePointer<Int>.allocate(capacity: newCapacity)
            if segmentCount > 0 {
                newTable.initialize(from: table!, count: segmentCount)
                newLengths.initialize(from: lengths!, count: segmentCount)
                newCapacities.initialize(from: capacities!, count: segmentCount)
            }
            table?.deallocate()
            lengths?.deallocate()
            capacities?.deallocate()
            (table, lengths, capacities, tableCapacity) = (newTable, newLengths, newCapacities, newCapacity)
        }

        /// Moves every segment of `other` (owned by no one else) after these.
        func take(_ other: Storage) {
            for s in 0..<other.segmentCount {
                append(other.table![s], length: other.lengths![s], capacity: other.capacities![s])
            }
            other.segmentCount = 0
        }

        /// A copy with segments of its own (lengths must be current).
        func copy() -> Storage {
            let copy = Storage()
            for s in 0..<segmentCount {
                let segment = UnsafeMutablePointer<Element>.allocate(capacity: capacities![s])
                segment.initialize(from: table![s], count: lengths![s])
                copy.append(segment, length: lengths![s], capacity: capacities![s])
            }
            return copy
        }
    }
}
