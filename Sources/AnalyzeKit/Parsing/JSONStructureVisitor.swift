/// Receives the structure of a container while ``JSONScanner/scanContainer(at:visitor:)``
/// validates it: every member key, scalar, and container opening and closing,
/// in document order.
protocol JSONStructureVisitor {
    /// A member key (its quotes included); the member's value follows.
    mutating func key(start: Int, end: Int, hasEscapes: Bool)
    mutating func scalar(_ value: JSONValue)
    /// An object or array starting at `start`; ``close(at:)`` follows after its contents.
    mutating func open(_ kind: JSONKind, at start: Int)
    /// The innermost open container ends just before `end`.
    mutating func close(at end: Int)
}

/// Validation only.
///
/// It has a byte of storage although it needs none: Swift may pass the address
/// of a zero-sized `inout` value as an arbitrary pointer, and ThreadSanitizer's
/// access tracking then faults on it (found by the TSan run of the end-to-end
/// tests; `scripts/sanitizers.sh thread`).
struct IgnoringStructureVisitor: JSONStructureVisitor {
    private var storage: UInt8 = 0

    @inline(__always) mutating func key(start: Int, end: Int, hasEscapes: Bool) {}
    @inline(__always) mutating func scalar(_ value: JSONValue) {}
    @inline(__always) mutating func open(_ kind: JSONKind, at start: Int) {}
    @inline(__always) mutating func close(at end: Int) {}
}
