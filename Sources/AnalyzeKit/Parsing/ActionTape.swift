/// The structure of one container (the `action` object of an event), recorded
/// while the line is validated, so reading its fields and checking its keys
/// never walks the bytes again: the general way to read `action`, for the
/// objects ``ActionScan`` does not take in one pass (escaped keys, nested
/// containers under keys the SPEC does not read, repeats, invalid JSON).
///
/// Entries are in document order; the container itself is entry 0. Each entry
/// knows where its subtree ends, so the members of an object are reached by
/// hopping from sibling to sibling.
///
/// Performance: one entry (56 bytes) per value inside the container, in a
/// buffer reused from line to line: no allocation in the steady state, and an
/// append is a capacity check and a store (no uniqueness check per append:
/// the buffer is made unique once, when recording starts).
struct ActionTape: JSONStructureVisitor {
    struct Entry {
        /// The entry after this one's subtree (its next sibling, if any).
        var next: Int32
        /// The member key's span, quotes included; `keyStart` is -1 for array
        /// elements and the root.
        var keyStart: Int
        var keyEnd: Int
        var keyHasEscapes: Bool
        var value: JSONValue

        var hasKey: Bool { keyStart >= 0 }

        /// The member key as a string value (quotes included).
        var keySpan: JSONValue { JSONValue(start: keyStart, end: keyEnd, kind: .string, flag: keyHasEscapes) }
    }

    /// Storage for entries; replaced (never resized in place) when full.
    private final class Storage {
        let entries: UnsafeMutablePointer<Entry>
        let capacity: Int

        init(capacity: Int) {
            entries = .allocate(capacity: capacity)
            self.capacity = capacity
        }

        deinit { entries.deallocate() }  // Entry is a trivial type: nothing to deinitialize
    }

    private var storage = Storage(capacity: 32)
    private var count = 0
    private var openEntries: [Int32] = []
    /// The key of the member whose value comes next; `pendingKeyStart` is -1 for none.
    private var pendingKeyStart = -1
    private var pendingKeyEnd = -1
    private var pendingKeyHasEscapes = false
    /// One object's keys (decoded), and where each is among them: scratch for
    /// ``hasRepeatedKey(in:)``, reused from object to object and line to line
    /// (it keeps the room of the largest object met: its keys' bytes and 16
    /// bytes a key, at most about three times a line of `"":0,` members).
    private var keyBytes: [UInt8] = []
    private var keySpans: [KeySpan] = []

    private struct KeySpan {
        var start: Int
        var count: Int
    }

    init() {
        openEntries.reserveCapacity(8)
    }

    /// The recorded entries, in document order (valid while the tape is neither
    /// reset nor recording).
    var entries: UnsafeBufferPointer<Entry> { UnsafeBufferPointer(start: storage.entries, count: count) }

    /// Forgets the previous container.
    mutating func reset() {
        // A copy of this tape may still read the old entries: record into a
        // storage of our own.
        if !isKnownUniquelyReferenced(&storage) { storage = Storage(capacity: storage.capacity) }
        count = 0
        if !openEntries.isEmpty { openEntries.removeAll(keepingCapacity: true) }
        pendingKeyStart = -1
    }

    // MARK: Recording (JSONStructureVisitor)

    mutating func key(start: Int, end: Int, hasEscapes: Bool) {
        pendingKeyStart = start
        pendingKeyEnd = end
        pendingKeyHasEscapes = hasEscapes
    }

    @inline(__always)
    mutating func scalar(_ value: JSONValue) {
        append(value)
    }

    mutating func open(_ kind: JSONKind, at start: Int) {
        append(JSONValue(start: start, end: start, kind: kind, flag: false))
        openEntries.append(Int32(count - 1))
    }

    mutating func close(at end: Int) {
        let index = Int(openEntries.removeLast())
        storage.entries[index].value.end = end
        storage.entries[index].next = Int32(count)
    }

    @inline(__always)
    private mutating func append(_ value: JSONValue) {
        if count == storage.capacity { grow() }
        let hasKey = pendingKeyStart >= 0
        (storage.entries + count).initialize(to: Entry(
            next: Int32(count + 1),
            keyStart: pendingKeyStart, keyEnd: hasKey ? pendingKeyEnd : -1,
            keyHasEscapes: hasKey && pendingKeyHasEscapes,
            value: value))
        pendingKeyStart = -1
        count += 1
    }

    private mutating func grow() {
        let larger = Storage(capacity: storage.capacity * 2)
        larger.entries.initialize(from: storage.entries, count: count)
        storage = larger
    }

    // MARK: Reading

    /// The entry indices of the members or elements of the container at
    /// `index`, in document order (hopping over nested subtrees).
    ///
    /// A sequence over the entries themselves, not a closure: callers may
    /// mutate their own state (the parser's) while they iterate.
    func children(of index: Int) -> Children {
        Children(entries: entries, cursor: index + 1, stop: Int(entries[index].next))
    }

    struct Children: Sequence, IteratorProtocol {
        fileprivate let entries: UnsafeBufferPointer<Entry>
        fileprivate var cursor: Int
        fileprivate let stop: Int

        mutating func next() -> Int? {
            guard cursor < stop else { return nil }
            defer { cursor = Int(entries[cursor].next) }
            return cursor
        }
    }

    /// The key of a member entry, decoded when it holds escapes (into `scratch`).
    func withKey<R>(of index: Int, in scanner: JSONScanner, scratch: inout [UInt8],
                    _ body: (UnsafeRawBufferPointer) -> R) -> R {
        let span = entries[index].keySpan
        guard span.hasEscapes else { return body(scanner.rawContent(span)) }
        scanner.decodeString(span, into: &scratch)
        return scratch.withUnsafeBytes(body)
    }

    /// Whether any object in the container, itself included, has a key twice
    /// (compared on decoded bytes).
    ///
    /// Performance: objects of at most 8 keys, none escaped (every real
    /// `action`), compare their keys pairwise in place, length first. Others
    /// (escaped keys are compared decoded) copy their keys into scratch kept
    /// from object to object, sort them by their bytes and compare
    /// neighbours: no allocation per object, and n log n comparisons for n
    /// keys however alike they are. (Until the sixty-fourth session one
    /// escaped key anywhere in `action` sent all its objects, and nine keys an
    /// object, to a `Set` of decoded keys made per object: about 230 ns for
    /// two short keys, five to eight times the rest of its line's work.)
    mutating func hasRepeatedKey(in scanner: JSONScanner) -> Bool {
        for index in entries.indices where entries[index].value.kind == .object {
            if objectHasRepeatedKey(index, in: scanner) { return true }
        }
        return false
    }

    private mutating func objectHasRepeatedKey(_ object: Int, in scanner: JSONScanner) -> Bool {
        var count = 0
        var hasEscapes = false
        for member in children(of: object) {
            count += 1
            hasEscapes = hasEscapes || entries[member].keyHasEscapes
        }
        guard count > 1 else { return false }
        if count <= 8 && !hasEscapes {
            for a in children(of: object) {
                let x = entries[a]
                let length = x.keyEnd - x.keyStart
                for b in Children(entries: entries, cursor: Int(x.next), stop: Int(entries[object].next)) {
                    let y = entries[b]
                    if y.keyEnd - y.keyStart == length
                        && RawBytes.equal(scanner.base + x.keyStart, scanner.base + y.keyStart, count: length) {
                        return true
                    }
                }
            }
            return false
        }
        keyBytes.removeAll(keepingCapacity: true)
        keySpans.removeAll(keepingCapacity: true)
        for member in children(of: object) {
            let start = keyBytes.count
            let span = entries[member].keySpan
            if span.hasEscapes {
                scanner.appendDecodedString(span, to: &keyBytes)
            } else {
                keyBytes.append(contentsOf: scanner.rawContent(span))
            }
            keySpans.append(KeySpan(start: start, count: keyBytes.count - start))
        }
        return keyBytes.withUnsafeBytes { bytes in
            keySpans.withUnsafeMutableBufferPointer { spans in
                func key(_ span: KeySpan) -> UnsafeRawBufferPointer {
                    UnsafeRawBufferPointer(rebasing: bytes[span.start..<span.start + span.count])
                }
                spans.sort { RawBytes.precedes(key($0), key($1)) }
                for i in 1..<spans.count where RawBytes.compare(key(spans[i - 1]), key(spans[i])) == 0 { return true }
                return false
            }
        }
    }
}
