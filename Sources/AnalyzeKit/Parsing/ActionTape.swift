#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The structure of one container (the `action` object of an event), recorded
/// while the line is validated, so reading its fields and checking its keys
/// never walks the bytes again.
///
/// Entries are in document order; the container itself is entry 0. Each entry
/// knows where its subtree ends, so the members of an object are reached by
/// hopping from sibling to sibling.
///
/// Performance: one entry (48 bytes) per value inside the container, in a
/// buffer reused from line to line; no allocation in the steady state.
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
    }

    private(set) var entries: [Entry] = []
    private var openEntries: [Int32] = []
    private var pendingKey: (start: Int, end: Int, hasEscapes: Bool)?
    /// Whether any key in the container has an escape (rare: those keys are
    /// compared decoded).
    private var anyKeyHasEscapes = false

    init() {
        entries.reserveCapacity(32)
        openEntries.reserveCapacity(8)
    }

    /// Forgets the previous container.
    mutating func reset() {
        if !entries.isEmpty { entries.removeAll(keepingCapacity: true) }
        if !openEntries.isEmpty { openEntries.removeAll(keepingCapacity: true) }
        pendingKey = nil
        anyKeyHasEscapes = false
    }

    // MARK: Recording (JSONStructureVisitor)

    mutating func key(start: Int, end: Int, hasEscapes: Bool) {
        pendingKey = (start, end, hasEscapes)
        anyKeyHasEscapes = anyKeyHasEscapes || hasEscapes
    }

    mutating func scalar(_ value: JSONValue) {
        append(value)
    }

    mutating func open(_ kind: JSONKind, at start: Int) {
        append(JSONValue(start: start, end: start, kind: kind, flag: false))
        openEntries.append(Int32(entries.count - 1))
    }

    mutating func close(at end: Int) {
        let index = Int(openEntries.removeLast())
        entries[index].value.end = end
        entries[index].next = Int32(entries.count)
    }

    private mutating func append(_ value: JSONValue) {
        let key = pendingKey ?? (-1, -1, false)
        pendingKey = nil
        entries.append(Entry(
            next: Int32(entries.count + 1),
            keyStart: key.start, keyEnd: key.end, keyHasEscapes: key.hasEscapes,
            value: value))
    }

    // MARK: Reading

    /// Calls `body` with the entry index of each member or element of the
    /// container at `index`, in document order.
    @inline(__always)
    func forEachChild(of index: Int, _ body: (Int) -> Void) {
        let stop = Int(entries[index].next)
        var child = index + 1
        while child < stop {
            body(child)
            child = Int(entries[child].next)
        }
    }

    /// The key of a member entry, decoded when it holds escapes (into `scratch`).
    func withKey<R>(of index: Int, in scanner: JSONScanner, scratch: inout [UInt8],
                    _ body: (UnsafeRawBufferPointer) -> R) -> R {
        let entry = entries[index]
        let span = JSONValue(start: entry.keyStart, end: entry.keyEnd, kind: .string, flag: entry.keyHasEscapes)
        guard entry.keyHasEscapes else { return body(scanner.rawContent(span)) }
        scanner.decodeString(span, into: &scratch)
        return scratch.withUnsafeBytes(body)
    }

    /// Whether any object in the container, itself included, has a key twice
    /// (compared on decoded bytes).
    ///
    /// Performance: small objects without escaped keys (every real `action`)
    /// compare their keys pairwise, length first; others fall back to a set of
    /// decoded keys, linear in the number of keys however alike they are.
    func hasRepeatedKey(in scanner: JSONScanner) -> Bool {
        for index in entries.indices where entries[index].value.kind == .object {
            if objectHasRepeatedKey(index, in: scanner) { return true }
        }
        return false
    }

    private func objectHasRepeatedKey(_ object: Int, in scanner: JSONScanner) -> Bool {
        var count = 0
        forEachChild(of: object) { _ in count += 1 }
        guard count > 1 else { return false }
        if count <= 8 && !anyKeyHasEscapes {
            var found = false
            forEachChild(of: object) { a in
                guard !found else { return }
                let x = entries[a]
                let length = x.keyEnd - x.keyStart
                var b = Int(x.next)
                while b < Int(entries[object].next) {
                    let y = entries[b]
                    if y.keyEnd - y.keyStart == length
                        && RawBytes.equal(scanner.base + x.keyStart, scanner.base + y.keyStart, count: length) {
                        found = true
                        return
                    }
                    b = Int(y.next)
                }
            }
            return found
        }
        var seen = Set<[UInt8]>()
        seen.reserveCapacity(count)
        var scratch: [UInt8] = []
        var found = false
        forEachChild(of: object) { member in
            guard !found else { return }
            let key = withKey(of: member, in: scanner, scratch: &scratch) { Array($0) }
            if !seen.insert(key).inserted { found = true }
        }
        return found
    }
}
