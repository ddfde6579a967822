import CSupport

/// Skipping a nested value the parser does not read: the `context`,
/// `properties` or `device` objects exporters add to every line, and any
/// other object or array under a key the SPEC ignores.
///
/// Such a value is validated as strictly as everything else (a line with an
/// invalid one is `invalid_json`), so skipping it means scanning every byte:
/// ``skipContainer(at:)`` gives exactly the verdict and end of
/// ``scanContainer(at:visitor:)`` with an ``IgnoringStructureVisitor``, the
/// reference `JSONSkipTests` holds it to.
///
/// Performance: one loop with the open containers in a register (a bit
/// per level), keys scanned inline, and a string's common case — plain ASCII
/// up to its closing quote — decided by one 16-byte mask per 16 bytes, the
/// rest (escapes, non-ASCII, a line's last bytes) handed to
/// ``scanStringContent(from:escapes:)`` where the plain part ends. A `, ` or
/// `: ` is passed without a loop (``skipWhitespaceOrOneSpace(_:)``). About
/// 130 instructions a member of a flat object of short strings (callgrind),
/// against about 200 for the general container scan (its visitor calls, a
/// call per key and its container stack in memory): the `properties`
/// object of the plain exporter's lines (`bench/plain_export.py`, five
/// members, 155 bytes) cost about 1 000 instructions a line that way and
/// about 700 this way.
extension JSONScanner {
    /// Validates the object or array starting at `start` (its `{` or `[`);
    /// returns the index after its closing bracket, or nil when invalid.
    /// Nesting deeper than 64 levels goes the general way.
    mutating func skipContainer(at start: Int) -> Int? {
        let base = self.base, end = self.end
        // Bit d: the container open at depth d is an object.
        var objects: UInt64 = 0
        var depth = 0
        var i = start
        // Whether a member's key comes before the next value.
        var atKey = false
        while true {
            if atKey {
                guard i < end, base[i] == UInt8(ascii: "\""), let afterKey = skipString(at: i) else { return nil }
                let colon = skipWhitespaceOrOneSpace(afterKey)
                guard colon < end, base[colon] == UInt8(ascii: ":") else { return nil }
                i = skipWhitespaceOrOneSpace(colon &+ 1)
            }
            // A value starts at `i`.
            guard i < end else { return nil }
            let c = base[i]
            if c == UInt8(ascii: "\"") {
                guard let next = skipString(at: i) else { return nil }
                i = next
            } else if c == UInt8(ascii: "{") || c == UInt8(ascii: "[") {
                guard depth < 64 else { return skipDeepContainer(at: start) }
                i = skipWhitespaceOrOneSpace(i &+ 1)
                guard i < end else { return nil }
                // `}` and `]` are their openers plus 2.
                if base[i] == c &+ 2 {
                    i &+= 1  // an empty container: a complete value
                } else {
                    let bit: UInt64 = 1 &<< UInt64(depth)
                    depth &+= 1
                    atKey = c == UInt8(ascii: "{")
                    objects = atKey ? objects | bit : objects & ~bit
                    continue
                }
            } else {
                guard let next = skipScalar(at: i) else { return nil }
                i = next
            }
            // After a complete value: close containers, or on to the next element.
            while true {
                if depth == 0 { return i }
                i = skipWhitespaceOrOneSpace(i)
                guard i < end else { return nil }
                let c = base[i]
                atKey = objects & (1 &<< UInt64(depth &- 1)) != 0
                if c == UInt8(ascii: ",") {
                    i = skipWhitespaceOrOneSpace(i &+ 1)
                    break
                }
                guard c == (atKey ? UInt8(ascii: "}") : UInt8(ascii: "]")) else { return nil }
                depth &-= 1
                i &+= 1
            }
        }
    }

    /// A container nested deeper than the fast loop's 64 levels: the general
    /// scan, from its start (rare enough that the repeated bytes do not matter).
    @inline(never)
    private mutating func skipDeepContainer(at start: Int) -> Int? {
        var ignoring = IgnoringStructureVisitor()
        return scanContainer(at: start, visitor: &ignoring)
    }

    /// Validates the string whose opening quote is at `i`; returns the index
    /// after its closing quote. Plain ASCII is passed 16 bytes at a time; the
    /// first other byte hands the rest to ``scanStringContent(from:escapes:)``.
    @inline(__always)
    private func skipString(at i: Int) -> Int? {
        var j = i &+ 1
        while j &+ 16 <= end {
            let special = analyze_string_specials16(base + j)
            if special != 0 {
                j &+= special.trailingZeroBitCount
                if base[j] == UInt8(ascii: "\"") { return j &+ 1 }
                break
            }
            j &+= 16
        }
        return scanStringContent(from: j, escapes: false)?.0
    }

    /// A number, `true`, `false` or `null` at `i`; returns the index after it.
    @inline(__always)
    private func skipScalar(at i: Int) -> Int? {
        switch base[i] {
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return scanNumber(at: i)?.0
        case UInt8(ascii: "t"):
            return fourBytes(at: i) == Self.trueBytes ? i &+ 4 : nil
        case UInt8(ascii: "f"):
            guard fourBytes(at: i) == Self.falsBytes, i &+ 4 < end, base[i &+ 4] == UInt8(ascii: "e") else { return nil }
            return i &+ 5
        case UInt8(ascii: "n"):
            return fourBytes(at: i) == Self.nullBytes ? i &+ 4 : nil
        default:
            return nil
        }
    }
}
