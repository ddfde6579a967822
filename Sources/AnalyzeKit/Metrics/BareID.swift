/// An `event_id` kept in 16 bytes, with the kind of its spelling: a
/// canonical UUID in one letter case (the 16 bytes it spells,
/// ``PackedUUID``), or a short id — 1 to 16 bytes, the last not NUL — kept as
/// written and padded with NUL bytes (so its length is where the last
/// non-NUL byte ends). Such an id of an identity event is its copy until
/// settling, then an entry of `PartialAggregate.bareIDs` (a *bare id*); its
/// kind is in its record (``EventRecord/bareIDKind``).
enum BareID {
    enum Kind: Int32, CaseIterable {
        case lowerUUID = 0, upperUUID = 1, short = 2
    }

    /// The kind of `id` and its 16 bytes, written to `packed`; nil (and
    /// `packed` unspecified) when it fits neither way.
    static func pack(_ id: UnsafeRawBufferPointer, into packed: inout (UInt64, UInt64)) -> Kind? {
        if let letterCase = withUnsafeMutableBytes(of: &packed, { PackedUUID.pack(id, into: $0) }) {
            return letterCase == .lower ? .lowerUUID : .upperUUID
        }
        guard id.count <= 16, let last = id.last, last != 0 else { return nil }
        packed = (0, 0)
        withUnsafeMutableBytes(of: &packed) { $0.copyMemory(from: id) }
        return .short
    }

    /// The extra of a record whose bare id is at `index` in
    /// `PartialAggregate.bareIDs` (0 until settling moves it there) and of
    /// `kind`: the two share the field (``EventRecord/extra``).
    static func extra(index: Int, kind: Kind) -> Int32 {
        precondition(index < Int(EventRecord.extraLimit) / 4, "more than about 2²⁷ identity events with ids kept bare")
        return Int32(index) << 2 | kind.rawValue
    }

    /// The index and kind a bare id's ``extra(index:kind:)`` holds.
    static func indexAndKind(inExtra extra: Int32) -> (index: Int, kind: Kind) {
        guard let kind = Kind(rawValue: extra & 3) else { preconditionFailure("a bare id of no kind") }
        return (Int(extra >> 2), kind)
    }

    /// Whether the id packed as `a` precedes the one packed as `b`, both of
    /// one kind, in the SPEC's byte order of their texts. Packing keeps that
    /// order: a UUID's digits are packed in text order, each into a nibble
    /// with the order of the digits of one case, its hyphens in the same
    /// places; a short id is its bytes padded with NUL, and a text that is a
    /// prefix of another is padded to bytes below the other's (its last byte
    /// is not NUL).
    ///
    /// Performance: two compares, against writing both texts out (ties of
    /// instant are common in exports with duplicates or second timestamps).
    @inline(__always)
    static func precedes(_ a: (UInt64, UInt64), _ b: (UInt64, UInt64)) -> Bool {
        let (a0, b0) = (UInt64(bigEndian: a.0), UInt64(bigEndian: b.0))
        if a0 != b0 { return a0 < b0 }
        return UInt64(bigEndian: a.1) < UInt64(bigEndian: b.1)
    }

    /// Calls `body` with the text of the id packed as `packed` of `kind`.
    @inline(__always)
    static func withText<R>(of packed: (UInt64, UInt64), kind: Kind, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        guard kind == .short else {
            var text = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))  // 40 bytes
            return withUnsafeMutableBytes(of: &text) { text in
                withUnsafeBytes(of: packed) {
                    PackedUUID.unpack($0, case: kind == .lowerUUID ? .lower : .upper, into: text)
                }
                return body(UnsafeRawBufferPointer(rebasing: text[0..<PackedUUID.textCount]))
            }
        }
        return withUnsafeBytes(of: packed) { bytes in
            var count = 16
            while count > 1 && bytes[count - 1] == 0 { count -= 1 }
            return body(UnsafeRawBufferPointer(rebasing: bytes[0..<count]))
        }
    }
}

/// An `event_id` kept in 16 bytes (``BareID``; its kind is in its record).
struct PackedID {
    var bytes: (UInt64, UInt64)
}
