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

extension JSONScanner {
    /// The raw content of a string value without its quotes (valid as-is when
    /// the string has no escapes).
    func rawContent(_ value: JSONValue) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: base + value.start + 1, count: value.end - value.start - 2)
    }

    /// The bytes of a number or other literal token.
    func token(_ value: JSONValue) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: base + value.start, count: value.end - value.start)
    }

    /// Decodes a validated string value's content (escapes resolved, surrogate
    /// pairs joined) as UTF-8 into `output`, replacing its contents.
    func decodeString(_ value: JSONValue, into output: inout [UInt8]) {
        if !output.isEmpty { output.removeAll(keepingCapacity: true) }
        appendDecodedString(value, to: &output)
    }

    /// Decodes a validated string value's content (escapes resolved, surrogate
    /// pairs joined) as UTF-8 and appends it to `output`.
    ///
    /// Performance: decoding never lengthens a string (an escape of 2 bytes
    /// gives 1, one of 6 at most 3, a surrogate pair of 12 gives 4), so the
    /// bytes are written through a pointer into a temporary buffer of the
    /// content's length (on the stack when small) and appended at once: one
    /// array operation a string. (Appending byte by byte paid an array
    /// uniqueness check per byte: about 5 % of the instructions of a line
    /// whose strings had escapes.) Never inlined: callers test for escapes
    /// first, and their fast path stays small.
    @inline(never)
    func appendDecodedString(_ value: JSONValue, to output: inout [UInt8]) {
        let stop = value.end - 1
        let room = stop - (value.start + 1)
        guard room > 0 else { return }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: room) { buffer in
            let out = buffer.baseAddress!
            var n = 0
            var i = value.start + 1
            while i < stop {
                let c = base[i]
                guard c == UInt8(ascii: "\\") else {
                    out[n] = c
                    n += 1
                    i += 1
                    continue
                }
                let e = base[i + 1]
                i += 2
                switch e {
                case UInt8(ascii: "b"): out[n] = 0x08; n += 1
                case UInt8(ascii: "f"): out[n] = 0x0C; n += 1
                case UInt8(ascii: "n"): out[n] = 0x0A; n += 1
                case UInt8(ascii: "r"): out[n] = 0x0D; n += 1
                case UInt8(ascii: "t"): out[n] = 0x09; n += 1
                case UInt8(ascii: "u"):
                    var scalar = hex4(at: i)!
                    i += 4
                    if scalar >= 0xD800 && scalar <= 0xDBFF {
                        let low = hex4(at: i + 2)!
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        i += 6
                    }
                    n += Self.writeUTF8(scalar, to: out + n)
                default: out[n] = e; n += 1  // \" \\ \/
                }
            }
            output.append(contentsOf: UnsafeBufferPointer(start: out, count: n))
        }
    }

    /// Writes `scalar` as UTF-8 at `out`; returns how many bytes (1–4).
    @inline(__always)
    private static func writeUTF8(_ scalar: UInt32, to out: UnsafeMutablePointer<UInt8>) -> Int {
        switch scalar {
        case 0..<0x80:
            out[0] = UInt8(scalar)
            return 1
        case 0x80..<0x800:
            out[0] = UInt8(0xC0 | scalar >> 6)
            out[1] = UInt8(0x80 | scalar & 0x3F)
            return 2
        case 0x800..<0x10000:
            out[0] = UInt8(0xE0 | scalar >> 12)
            out[1] = UInt8(0x80 | (scalar >> 6) & 0x3F)
            out[2] = UInt8(0x80 | scalar & 0x3F)
            return 3
        default:
            out[0] = UInt8(0xF0 | scalar >> 18)
            out[1] = UInt8(0x80 | (scalar >> 12) & 0x3F)
            out[2] = UInt8(0x80 | (scalar >> 6) & 0x3F)
            out[3] = UInt8(0x80 | scalar & 0x3F)
            return 4
        }
    }
}

/// The kinds of the open containers, innermost last: a bit per level inline
/// for the first 64 levels (no allocation, cheap to copy), an array beyond.
struct ContainerStack {
    private var bits: UInt64 = 0
    private var depth = 0
    /// Levels beyond 64, made only when a line nests that deep. (An empty
    /// array here cost a release of the shared empty storage per scanner,
    /// that is per line; a nil one costs a test.)
    private var overflow: [Bool]?

    mutating func removeAll() {
        bits = 0
        depth = 0
        overflow = nil
    }

    /// Inlined; only the levels beyond 64 (the array) take a call.
    @inline(__always)
    mutating func push(_ isObject: Bool) {
        guard depth < 64 else { return pushBeyondBits(isObject) }
        let bit: UInt64 = 1 &<< UInt64(depth)
        bits = isObject ? bits | bit : bits & ~bit
        depth &+= 1
    }

    @inline(__always)
    mutating func pop() {
        depth &-= 1
        if depth >= 64 { popBeyondBits() }
    }

    @inline(never)
    private mutating func pushBeyondBits(_ isObject: Bool) {
        if overflow == nil { overflow = [] }
        overflow!.append(isObject)  // in place
        depth += 1
    }

    @inline(never)
    private mutating func popBeyondBits() {
        overflow!.removeLast()
    }

    var last: Bool? {
        guard depth > 0 else { return nil }
        if depth > 64 { return overflow!.last }
        return bits & (1 &<< UInt64(depth - 1)) != 0  // depth - 1 < 64
    }
}

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
