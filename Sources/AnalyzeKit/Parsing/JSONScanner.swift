import CSupport
/// A byte-level RFC 8259 scanner over one NDJSON line.
///
/// It validates everything it passes over — structure, numbers, string
/// escapes (surrogate pairs included), UTF-8 — and hands back ``JSONValue``
/// spans so callers decode only the strings they need. Nesting uses an
/// explicit stack, never recursion, so depth is bounded by the line length
/// only. Scanning touches each byte once.
///
/// Containers are skipped without building anything, or reported to a
/// ``JSONStructureVisitor`` (``ActionTape`` records the `action` object that
/// way, so it is never walked twice).
///
/// The scanner reports only *that* something is invalid; a line is rejected
/// as a whole with `invalid_json`, so no error position is computed.
struct JSONScanner {
    let base: UnsafePointer<UInt8>
    let end: Int
    /// Open containers while skipping a nested value: `true` for objects.
    private var containers = ContainerStack()

    init(_ bytes: UnsafeRawBufferPointer) {
        // A zero-length line never reaches the scanner (it is blank), but keep
        // a valid pointer for empty buffers anyway.
        base = bytes.baseAddress.map { $0.assumingMemoryBound(to: UInt8.self) }
            ?? UnsafePointer(bitPattern: 1)!
        end = bytes.count
    }

    @inline(__always)
    func byte(_ i: Int) -> UInt8 { base[i] }

    /// Skips JSON whitespace within a line: space, tab and CR. A line feed
    /// ends an NDJSON line, so it is never inside one, and the scanner stops
    /// at it (``EventParser/parseLine(atStartOf:)`` scans to the end of a
    /// chunk, and finds the line's end where the scan stops).
    ///
    /// Performance: most calls land on a byte that is not whitespace (exports
    /// are written without it), decided by one load and one compare before
    /// any loop.
    @inline(__always)
    func skipWhitespace(_ i: Int) -> Int {
        if i < end && base[i] > 0x20 { return i }
        return skipWhitespaceRun(i)
    }

    /// ``skipWhitespace(_:)`` just after a `:` or `,`, where some writers
    /// put one space (Python's `json.dumps` always does): that space is
    /// passed by one compare, without the call to the loop.
    ///
    /// Used inside `action` objects. The top-level walk
    /// (`EventParser.scanTopLevel`) and the skip of other nested values use
    /// ``skipWhitespaceOrOneSpace(_:)`` instead: with this one the walk took
    /// 1.4 % of the instructions off `json.dumps` lines but added 1–2 % to
    /// compact ones (the walk's code grew; compiled twice, one walk per
    /// style, +0.9 %), while that one, testing for a token first, costs
    /// compact lines nothing.
    @inline(__always)
    func skipWhitespaceAfterSeparator(_ i: Int) -> Int {
        if i + 1 < end {
            let c = base[i]
            if c > 0x20 { return i }
            if c == 0x20 && base[i + 1] > 0x20 { return i + 1 }
        }
        return skipWhitespaceRun(i)
    }

    /// ``skipWhitespace(_:)`` with one space before a token also passed
    /// inline (the `: ` and `, ` of `json.dumps` and most pretty writers):
    /// the same first test, so compact lines pay nothing more.
    @inline(__always)
    func skipWhitespaceOrOneSpace(_ i: Int) -> Int {
        if i < end && base[i] > 0x20 { return i }
        if i &+ 1 < end && base[i] == 0x20 && base[i &+ 1] > 0x20 { return i &+ 1 }
        return skipWhitespaceRun(i)
    }

    private func skipWhitespaceRun(_ i: Int) -> Int {
        // One space before a non-space byte (`": "`, `", "`, `" : "`) is the
        // usual run where there is one: decided without the loop.
        if i + 1 < end && base[i] == 0x20 && base[i + 1] > 0x20 { return i + 1 }
        var i = i
        while i < end {
            let c = base[i]
            // Every JSON whitespace byte is at most 0x20: one compare decides
            // for nearly every byte that ends the run.
            guard c <= 0x20, c == 0x20 || c == 0x0D || c == 0x09 else { break }
            i += 1
        }
        return i
    }

    /// Scans one value starting exactly at `i`; nil when invalid.
    mutating func scanValue(at i: Int) -> JSONValue? {
        guard i < end else { return nil }
        switch base[i] {
        case UInt8(ascii: "\""):
            guard let (next, escapes) = scanString(at: i) else { return nil }
            return JSONValue(start: i, end: next, kind: .string, flag: escapes)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            guard let (next, fractional) = scanNumber(at: i) else { return nil }
            return JSONValue(start: i, end: next, kind: .number, flag: fractional)
        case UInt8(ascii: "t"):
            guard fourBytes(at: i) == Self.trueBytes else { return nil }
            return JSONValue(start: i, end: i + 4, kind: .boolean, flag: false)
        case UInt8(ascii: "f"):
            guard fourBytes(at: i) == Self.falsBytes, i + 4 < end, base[i + 4] == UInt8(ascii: "e") else { return nil }
            return JSONValue(start: i, end: i + 5, kind: .boolean, flag: false)
        case UInt8(ascii: "n"):
            guard fourBytes(at: i) == Self.nullBytes else { return nil }
            return JSONValue(start: i, end: i + 4, kind: .null, flag: false)
        case UInt8(ascii: "{"):
            guard let next = skipContainer(at: i) else { return nil }
            return JSONValue(start: i, end: next, kind: .object, flag: false)
        case UInt8(ascii: "["):
            guard let next = skipContainer(at: i) else { return nil }
            return JSONValue(start: i, end: next, kind: .array, flag: false)
        default:
            return nil
        }
    }

    /// The four bytes at `i` as a little-endian word (0, which no literal
    /// spells, when fewer remain): a literal is matched by one compare
    /// instead of a loop over its bytes.
    @inline(__always)
    func fourBytes(at i: Int) -> UInt32 {
        end - i >= 4 ? UInt32(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt32.self)) : 0
    }

    /// `true`, `fals` (then `e`) and `null`, as ``fourBytes(at:)`` reads
    /// them: the first byte lowest.
    static let trueBytes: UInt32 = 0x6575_7274  // e u r t
    static let falsBytes: UInt32 = 0x736C_6166  // s l a f
    static let nullBytes: UInt32 = 0x6C6C_756E  // l l u n

    /// Validates the object or array starting at `start` (iteratively),
    /// reporting its structure to `visitor` in document order; returns the index
    /// after its closing bracket. Specialized per visitor, so the plain skip
    /// (``IgnoringStructureVisitor``) costs nothing extra.
    mutating func scanContainer<Visitor: JSONStructureVisitor>(at start: Int, visitor: inout Visitor) -> Int? {
        containers.removeAll()
        var i = start
        // Loop invariant: `i` is where a value is expected.
        valueLoop: while true {
            guard i < end else { return nil }
            let c = base[i]
            if c == UInt8(ascii: "{") || c == UInt8(ascii: "[") {
                let isObject = c == UInt8(ascii: "{")
                visitor.open(isObject ? .object : .array, at: i)
                i = skipWhitespace(i + 1)
                guard i < end else { return nil }
                if base[i] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    i += 1   // empty container: a complete value
                    visitor.close(at: i)
                } else {
                    containers.push(isObject)
                    if isObject {
                        guard let afterKey = scanMemberKey(at: i, visitor: &visitor) else { return nil }
                        i = afterKey
                    }
                    continue valueLoop
                }
            } else if c == UInt8(ascii: "\"") {
                // Most values are strings: scanned inline, without the general
                // value dispatch (a call per value).
                guard let (next, escapes) = scanString(at: i) else { return nil }
                visitor.scalar(JSONValue(start: i, end: next, kind: .string, flag: escapes))
                i = next
            } else {
                guard let value = scanValue(at: i) else { return nil }
                visitor.scalar(value)
                i = value.end
            }
            // After a complete value: close containers or move to the next element.
            while let isObject = containers.last {
                i = skipWhitespace(i)
                guard i < end else { return nil }
                let c = base[i]
                if c == UInt8(ascii: ",") {
                    i = skipWhitespaceAfterSeparator(i + 1)
                    if isObject {
                        guard let afterKey = scanMemberKey(at: i, visitor: &visitor) else { return nil }
                        i = afterKey
                    }
                    continue valueLoop
                }
                guard c == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else { return nil }
                containers.pop()
                i += 1
                visitor.close(at: i)
            }
            return i
        }
    }

    /// Scans `"key"` `:` and following whitespace; returns where the value starts.
    private func scanMemberKey<Visitor: JSONStructureVisitor>(at i: Int, visitor: inout Visitor) -> Int? {
        guard i < end, base[i] == UInt8(ascii: "\""), let (afterKey, escapes) = scanString(at: i) else { return nil }
        let colon = skipWhitespace(afterKey)
        guard colon < end, base[colon] == UInt8(ascii: ":") else { return nil }
        visitor.key(start: i, end: afterKey, hasEscapes: escapes)
        return skipWhitespaceAfterSeparator(colon + 1)
    }

    /// Validates a string starting at the quote at `i`. Returns the index after
    /// the closing quote and whether it held escapes.
    @inline(__always)
    func scanString(at start: Int) -> (Int, Bool)? {
        scanStringContent(from: start + 1, escapes: false)
    }

    /// ``scanString(at:)`` from `from`, a byte inside the string's content
    /// whose bytes before it are valid (`escapes`: they held an escape).
    @inline(__always)
    func scanStringContent(from: Int, escapes: Bool) -> (Int, Bool)? {
        var i = from
        var escapes = escapes
        while i < end {
            // Fast path: skip plain ASCII bytes (no quote, backslash, control
            // character or non-ASCII byte among them) 16 at a time with SSE2,
            // then 8 at a time near the end of the line.
            var foundSpecial = false
            while i + 16 <= end {
                let special = analyze_string_specials16(base + i)
                if special != 0 {
                    i += special.trailingZeroBitCount
                    foundSpecial = true
                    break
                }
                i += 16
            }
            while !foundSpecial && i + 8 <= end {
                let word = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
                let special = Self.specialStringBytes(word)
                if special != 0 {
                    // The lowest flagged byte is always a real one (borrows only
                    // run upward), so jump straight to it.
                    i += special.trailingZeroBitCount >> 3
                    break
                }
                i += 8
            }
            guard i < end else { break }
            let c = base[i]
            if c == UInt8(ascii: "\"") { return (i + 1, escapes) }
            if c == UInt8(ascii: "\\") {
                escapes = true
                guard let next = scanEscape(at: i) else { return nil }
                i = next
            } else if c < 0x20 {
                return nil
            } else if c < 0x80 {
                i += 1
            } else {
                guard let next = scanUTF8Scalar(at: i) else { return nil }
                i = next
            }
        }
        return nil
    }

    /// The high bit of each byte of `word` that is `"`, `\\`, below 0x20 or above 0x7F (SWAR:
    /// a byte is zero in `x` exactly when the high bit of `(x - 0x01…) & ~x` is set).
    @inline(__always)
    static func specialStringBytes(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let zeroQuote = (quote &- ones) & ~quote
        let zeroBackslash = (backslash &- ones) & ~backslash
        let control = (word &- ones &* 0x20) & ~word
        return (zeroQuote | zeroBackslash | control | word) & highs
    }

    /// Validates the escape at the backslash at `i`; a high surrogate `\uD8xx`
    /// must be followed by a low one `\uDCxx`, and a low one never stands alone.
    private func scanEscape(at i: Int) -> Int? {
        guard i + 1 < end else { return nil }
        switch base[i + 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
             UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            return i + 2
        case UInt8(ascii: "u"):
            guard let unit = hex4(at: i + 2) else { return nil }
            if unit >= 0xDC00 && unit <= 0xDFFF { return nil }
            if unit >= 0xD800 && unit <= 0xDBFF {
                guard i + 7 < end, base[i + 6] == UInt8(ascii: "\\"), base[i + 7] == UInt8(ascii: "u"),
                      let low = hex4(at: i + 8), low >= 0xDC00 && low <= 0xDFFF
                else { return nil }
                return i + 12
            }
            return i + 6
        default:
            return nil
        }
    }

    /// Four hex digits at `i`, or nil.
    func hex4(at i: Int) -> UInt32? {
        guard i + 4 <= end else { return nil }
        var value: UInt32 = 0
        for k in 0..<4 {
            let c = base[i + k]
            let digit: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = c - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    /// One well-formed UTF-8 scalar (RFC 3629: no overlongs, no surrogates,
    /// nothing above U+10FFFF) starting with the non-ASCII byte at `i`.
    private func scanUTF8Scalar(at i: Int) -> Int? {
        let lead = base[i]
        @inline(__always) func continuation(_ k: Int, _ low: UInt8 = 0x80, _ high: UInt8 = 0xBF) -> Bool {
            i + k < end && base[i + k] >= low && base[i + k] <= high
        }
        switch lead {
        case 0xC2...0xDF:
            return continuation(1) ? i + 2 : nil
        case 0xE0:
            return continuation(1, 0xA0) && continuation(2) ? i + 3 : nil
        case 0xE1...0xEC, 0xEE...0xEF:
            return continuation(1) && continuation(2) ? i + 3 : nil
        case 0xED:
            return continuation(1, 0x80, 0x9F) && continuation(2) ? i + 3 : nil
        case 0xF0:
            return continuation(1, 0x90) && continuation(2) && continuation(3) ? i + 4 : nil
        case 0xF1...0xF3:
            return continuation(1) && continuation(2) && continuation(3) ? i + 4 : nil
        case 0xF4:
            return continuation(1, 0x80, 0x8F) && continuation(2) && continuation(3) ? i + 4 : nil
        default:
            return nil
        }
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`. Returns the end and
    /// whether a fraction or exponent was present.
    func scanNumber(at start: Int) -> (Int, Bool)? {
        var i = start
        if base[i] == UInt8(ascii: "-") { i += 1 }
        guard i < end else { return nil }
        if base[i] == UInt8(ascii: "0") {
            i += 1
        } else if base[i] >= UInt8(ascii: "1") && base[i] <= UInt8(ascii: "9") {
            i = skipDigits(i + 1)
        } else {
            return nil
        }
        var fractional = false
        if i < end && base[i] == UInt8(ascii: ".") {
            let digits = skipDigits(i + 1)
            guard digits > i + 1 else { return nil }
            i = digits
            fractional = true
        }
        if i < end && (base[i] == UInt8(ascii: "e") || base[i] == UInt8(ascii: "E")) {
            i += 1
            if i < end && (base[i] == UInt8(ascii: "+") || base[i] == UInt8(ascii: "-")) { i += 1 }
            let digits = skipDigits(i)
            guard digits > i else { return nil }
            i = digits
            fractional = true
        }
        return (i, fractional)
    }

    @inline(__always)
    private func skipDigits(_ i: Int) -> Int {
        var i = i
        while i < end && base[i] >= UInt8(ascii: "0") && base[i] <= UInt8(ascii: "9") { i += 1 }
        return i
    }
}
