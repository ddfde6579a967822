/// Reads an `action` object of the usual plain shape in one pass: validates
/// it, rules out repeated keys, and notes its ``ActionFacts`` as it goes,
/// without recording its structure first (``ActionTape``) and looking the
/// fields up in it afterwards.
///
/// The plain shape: escapes only in keys the SPEC reads at that level
/// (decoded, then matched; another key with escapes could repeat one
/// spelled plainly, which comparing their bytes would miss); where the SPEC reads a
/// value, an object only under `meta`, `params` and `params.value` and as
/// the elements of an array `params.value`, a scalar everywhere else; under
/// a key the SPEC does not read, any value nested at most
/// ``maxOtherDepth`` containers deep (validated, its objects checked for
/// repeated keys, nothing noted); at most ``maxOtherKeys`` keys the SPEC
/// does not read per object; no key twice in one object. That is every
/// action the SPEC describes, with anything added under other keys.
/// Anything else — and anything invalid — makes ``scan(_:at:into:)`` answer
/// nil, and the caller reads the object the general way (``ActionTape``),
/// which decides. So this pass only ever has to be right about the objects
/// it accepts.
///
/// Performance: no 56-byte entry per value, no second pass over each
/// object's keys for repeats, no search for each field by comparing keys:
/// an action not found in the ``ActionCache`` costs about 1 400 fewer
/// instructions than recording, checking and looking it up (−9 % of all
/// instructions on an export whose every action is unique, −2 % on the
/// generator's, where 83 % are found). Containers under other keys (the
/// independent exporter's `meta.variation`, an option's `image`) and the
/// SPEC's keys spelled with escapes are read here too since the
/// twenty-fifth session: before, such an action was scanned up to them and
/// then recorded and read again the general way, about 7 000 instructions
/// more each (13 000 with an escaped key, whose tape checks repeats through
/// a set of decoded keys).
enum ActionScan {
    /// Keys the SPEC does not read, per object, that are compared for repeats
    /// (pairwise): more send the object the general way.
    static let maxOtherKeys = 4

    /// How deep containers may nest under a key the SPEC does not read
    /// (bounding the recursion): deeper sends the object the general way.
    static let maxOtherDepth = 8

    /// The objects of the plain shape; each has its own known keys.
    /// `.other`: an object under a key the SPEC does not read, which has none.
    private enum Level {
        case root, meta, params, value, option, other
    }

    /// Scans the object starting at `start` (its `{`) into `facts`; returns
    /// the index after it, or nil when it is not of the plain shape or not
    /// valid JSON (`facts` then holds a partial reading).
    static func scan(_ scanner: inout JSONScanner, at start: Int, into facts: inout ActionFacts) -> Int? {
        facts.reset()
        var unused = ActionFacts.Option()
        return object(&scanner, at: start, level: .root, facts: &facts, option: &unused)
    }

    /// One object of `level`; an `.option` object's members go to `option`,
    /// every other level's to `facts`.
    private static func object(
        _ scanner: inout JSONScanner, at start: Int, level: Level, facts: inout ActionFacts,
        option: inout ActionFacts.Option, depth: Int = 0
    ) -> Int? {
        var i = scanner.skipWhitespace(start + 1)
        guard i < scanner.end else { return nil }
        if scanner.byte(i) == UInt8(ascii: "}") { return i + 1 }
        var seen: UInt8 = 0
        var others = OtherKeys()
        while true {
            guard i < scanner.end, scanner.byte(i) == UInt8(ascii: "\""),
                  let (afterKey, keyEscapes) = scanner.scanString(at: i)
            else { return nil }
            let keyStart = i + 1, keyLength = afterKey - i - 2
            let key = UnsafeRawBufferPointer(start: scanner.base + keyStart, count: keyLength)
            i = scanner.skipWhitespace(afterKey)
            guard i < scanner.end, scanner.byte(i) == UInt8(ascii: ":") else { return nil }
            i = scanner.skipWhitespaceAfterSeparator(i + 1)
            guard i < scanner.end else { return nil }

            let known: Int
            if keyEscapes {
                // Only a known key may be spelled with escapes here: other
                // keys are compared for repeats by their bytes as written.
                known = escapedKnownKey(in: scanner, start: keyStart, length: keyLength, at: level)
                guard known >= 0 else { return nil }
            } else {
                known = knownKey(key, at: level)
            }
            if known >= 0 {
                let bit = UInt8(1) &<< UInt8(known)  // known < 8
                guard seen & bit == 0 else { return nil }
                seen |= bit
            } else {
                guard others.insert(start: keyStart, length: keyLength, in: scanner) else { return nil }
            }

            let c = scanner.byte(i)
            if c == UInt8(ascii: "{") || c == UInt8(ascii: "[") {
                // Containers only where the plain shape has them.
                let next: Int?
                switch (level, known, c) {
                case (.root, 2, UInt8(ascii: "{")):
                    facts.metaKind = .object
                    next = object(&scanner, at: i, level: .meta, facts: &facts, option: &option)
                case (.root, 3, UInt8(ascii: "{")):
                    facts.paramsKind = .object
                    next = object(&scanner, at: i, level: .params, facts: &facts, option: &option)
                case (.params, 1, UInt8(ascii: "{")):
                    facts.valueKind = .object
                    next = object(&scanner, at: i, level: .value, facts: &facts, option: &option)
                case (.params, 1, UInt8(ascii: "[")):
                    facts.valueKind = .array
                    next = options(&scanner, at: i, facts: &facts)
                case (_, -1, _):
                    // Under a key the SPEC does not read: validated and checked
                    // for repeats, nothing noted.
                    next = otherContainer(&scanner, at: i, depth: depth + 1, facts: &facts, option: &option)
                default:
                    next = nil
                }
                guard let next else { return nil }
                i = next
            } else {
                let value: JSONValue
                if c == UInt8(ascii: "\"") {
                    guard let (next, escapes) = scanner.scanString(at: i) else { return nil }
                    value = JSONValue(start: i, end: next, kind: .string, flag: escapes)
                } else {
                    guard let scanned = scanner.scanValue(at: i) else { return nil }
                    value = scanned
                }
                if known >= 0 { note(value, key: known, at: level, facts: &facts, option: &option) }
                i = value.end
            }

            i = scanner.skipWhitespace(i)
            guard i < scanner.end else { return nil }
            if scanner.byte(i) == UInt8(ascii: ",") {
                i = scanner.skipWhitespaceAfterSeparator(i + 1)
                continue
            }
            guard scanner.byte(i) == UInt8(ascii: "}") else { return nil }
            return i + 1
        }
    }

    /// The keys the SPEC does not read met so far in one object (their
    /// content's start and length in the line), compared for repeats; room
    /// for ``ActionScan/maxOtherKeys`` (four) in each tuple.
    private struct OtherKeys {
        private var starts = (0, 0, 0, 0)
        private var lengths = (0, 0, 0, 0)
        private var count = 0

        /// Adds the key; false when it repeats one met before, or when
        /// ``ActionScan/maxOtherKeys`` are met already.
        mutating func insert(start: Int, length: Int, in scanner: JSONScanner) -> Bool {
            guard count < ActionScan.maxOtherKeys else { return false }
            let stride = MemoryLayout<Int>.stride
            let repeated = withUnsafeBytes(of: starts) { starts in
                withUnsafeBytes(of: lengths) { lengths in
                    (0..<count).contains { k in
                        lengths.load(fromByteOffset: k * stride, as: Int.self) == length
                            && RawBytes.equal(scanner.base + starts.load(fromByteOffset: k * stride, as: Int.self),
                                              scanner.base + start, count: length)
                    }
                }
            }
            guard !repeated else { return false }
            withUnsafeMutableBytes(of: &starts) { $0.storeBytes(of: start, toByteOffset: count * stride, as: Int.self) }
            withUnsafeMutableBytes(of: &lengths) { $0.storeBytes(of: length, toByteOffset: count * stride, as: Int.self) }
            count += 1
            return true
        }
    }

    /// The container at `start` (its `{` or `[`) under a key the SPEC does
    /// not read, `depth` containers deep there: its objects are `.other`
    /// objects (no key twice, at most ``maxOtherKeys`` keys), its arrays'
    /// elements any value; nil beyond ``maxOtherDepth`` or when invalid.
    /// (`facts` and `option` are passed through untouched: an `.other`
    /// object has no known keys.)
    private static func otherContainer(
        _ scanner: inout JSONScanner, at start: Int, depth: Int, facts: inout ActionFacts,
        option: inout ActionFacts.Option
    ) -> Int? {
        guard depth <= maxOtherDepth else { return nil }
        if scanner.byte(start) == UInt8(ascii: "{") {
            return object(&scanner, at: start, level: .other, facts: &facts, option: &option, depth: depth)
        }
        guard let (first, more) = firstElement(in: scanner, at: start) else { return nil }
        guard more else { return first }
        var i = first
        while true {
            let c = scanner.byte(i)
            if c == UInt8(ascii: "{") || c == UInt8(ascii: "[") {
                guard let next = otherContainer(&scanner, at: i, depth: depth + 1, facts: &facts, option: &option)
                else { return nil }
                i = next
            } else {
                guard let value = scanner.scanValue(at: i) else { return nil }
                i = value.end
            }
            guard let (next, more) = afterElement(in: scanner, at: i) else { return nil }
            guard more else { return next }
            i = next
        }
    }

    /// The array `params.value` at `start` (its `[`): objects are options,
    /// scalars are elements that are not; nested arrays are not plain.
    private static func options(_ scanner: inout JSONScanner, at start: Int, facts: inout ActionFacts) -> Int? {
        guard let (first, more) = firstElement(in: scanner, at: start) else { return nil }
        guard more else { return first }
        var i = first
        while true {
            let c = scanner.byte(i)
            if c == UInt8(ascii: "{") {
                var option = ActionFacts.Option()
                guard let next = object(&scanner, at: i, level: .option, facts: &facts, option: &option) else { return nil }
                facts.elements.append(option)
                i = next
            } else if c == UInt8(ascii: "[") {
                return nil
            } else {
                guard let value = scanner.scanValue(at: i) else { return nil }
                facts.elements.append(nil)
                i = value.end
            }
            guard let (next, more) = afterElement(in: scanner, at: i) else { return nil }
            guard more else { return next }
            i = next
        }
    }

    /// An array's first element, for the array at `start` (its `[`): its
    /// start (`more`), or the index after the `]` of an empty array; nil at
    /// the end of the line.
    @inline(__always)
    private static func firstElement(in scanner: JSONScanner, at start: Int) -> (index: Int, more: Bool)? {
        let i = scanner.skipWhitespace(start + 1)
        guard i < scanner.end else { return nil }
        return scanner.byte(i) == UInt8(ascii: "]") ? (i + 1, false) : (i, true)
    }

    /// After an array element that ends at `i`: the next element's start
    /// (`more`) past a comma, or the index after the array's `]`; nil when
    /// neither follows.
    @inline(__always)
    private static func afterElement(in scanner: JSONScanner, at i: Int) -> (index: Int, more: Bool)? {
        let i = scanner.skipWhitespace(i)
        guard i < scanner.end else { return nil }
        if scanner.byte(i) == UInt8(ascii: ",") {
            let next = scanner.skipWhitespaceAfterSeparator(i + 1)
            guard next < scanner.end else { return nil }
            return (next, true)
        }
        guard scanner.byte(i) == UInt8(ascii: "]") else { return nil }
        return (i + 1, false)
    }

    /// The index among `level`'s known keys of the key written with escapes
    /// at `start` (its content, `length` bytes, validated), or -1. Known keys
    /// are ASCII letters, so only `\u` escapes of ASCII are decoded; any
    /// other escape, or more than 16 decoded bytes, is another key. (Not
    /// ``JSONScanner/decodeString(_:into:)``: that one decodes everything
    /// into a growing array; this one needs no buffer beyond 16 bytes and
    /// stops at the first byte no known key has.)
    @inline(never)
    private static func escapedKnownKey(in scanner: JSONScanner, start: Int, length: Int, at level: Level) -> Int {
        var buffer: (UInt64, UInt64) = (0, 0)
        return withUnsafeMutableBytes(of: &buffer) { decoded in
            var count = 0, i = start
            let end = start + length
            while i < end {
                guard count < decoded.count else { return -1 }
                var c = scanner.byte(i)
                if c == UInt8(ascii: "\\") {
                    guard scanner.byte(i + 1) == UInt8(ascii: "u"), let unit = scanner.hex4(at: i + 2), unit < 0x80
                    else { return -1 }
                    c = UInt8(truncatingIfNeeded: unit)
                    i += 6
                } else {
                    i += 1
                }
                decoded[count] = c
                count += 1
            }
            return knownKey(UnsafeRawBufferPointer(rebasing: decoded[0..<count]), at: level)
        }
    }

    /// The index of `key` among `level`'s known keys (its bit in the
    /// object's seen mask), or -1.
    @inline(__always)
    private static func knownKey(_ key: UnsafeRawBufferPointer, at level: Level) -> Int {
        switch level {
        case .root:
            if key.equals("elementId") { return 0 }
            if key.equals("name") { return 1 }
            if key.equals("meta") { return 2 }
            if key.equals("params") { return 3 }
        case .meta:
            if key.equals("onboardingId") { return 0 }
            if key.equals("screenClientId") { return 1 }
            if key.equals("screenIndex") { return 2 }
            if key.equals("screensTotal") { return 3 }
        case .params:
            if key.equals("type") { return 0 }
            if key.equals("value") { return 1 }
        case .value, .option:
            // An option reads the first three; `params.value` all six.
            if key.equals("id") { return 0 }
            if key.equals("value") { return 1 }
            if key.equals("label") { return 2 }
            if key.equals("day") { return 3 }
            if key.equals("month") { return 4 }
            if key.equals("year") { return 5 }
        case .other:
            break
        }
        return -1
    }

    /// Notes the scalar `value` of known key `key` of a `level` object.
    @inline(__always)
    private static func note(
        _ value: JSONValue, key: Int, at level: Level, facts: inout ActionFacts, option: inout ActionFacts.Option
    ) {
        switch (level, key) {
        case (.root, 0): facts.elementID = value
        case (.root, 1): facts.name = value
        case (.root, 2): facts.metaKind = value.kind
        case (.root, 3): facts.paramsKind = value.kind
        case (.meta, 0): facts.onboardingID = value
        case (.meta, 1): facts.screenClientID = value
        case (.meta, 2): facts.screenIndex = value
        case (.meta, 3): facts.screensTotal = value
        case (.params, 0): facts.paramsType = value
        case (.params, 1): facts.valueKind = value.kind
        case (.value, 0): facts.valueOption.id = value
        case (.value, 1): facts.valueOption.value = value
        case (.value, 2): facts.valueOption.label = value
        case (.value, 3): facts.day = value
        case (.value, 4): facts.month = value
        case (.value, 5): facts.year = value
        case (.option, 0): option.id = value
        case (.option, 1): option.value = value
        case (.option, 2): option.label = value
        default: break
        }
    }
}
