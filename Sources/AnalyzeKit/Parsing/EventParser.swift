/// Turns one NDJSON line into a ``ParsedEvent`` or the ``RejectReason`` that
/// rejects it, applying SPEC §2's checks in their precedence order.
///
/// One parser per worker: its buffers are reused line after line, so parsing
/// allocates nothing in the steady state. The whole line is validated as JSON
/// in one pass that also records the top-level envelope keys and reads
/// `action`: found in the ``ActionCache``, or read in the same pass when of
/// the plain shape (``ActionScan``), else recorded as an ``ActionTape``;
/// either way its ``ActionFacts`` give its fields and shape.
struct EventParser {
    enum Outcome {
        case accepted
        case rejected(RejectReason)
    }

    /// The most recently accepted event.
    private(set) var event = ParsedEvent()
    /// Options of the most recent select / multiSelect answer, in line order.
    private(set) var options: [OptionRefs] = []
    private var arena: [UInt8] = []
    /// The arena's size beyond which the next line empties it.
    private static let arenaBytesKept = 1 << 16
    /// Decoded keys (string values decode straight into `arena`).
    var scratchForKeys: [UInt8] = []
    /// The structure of the line's (first) `action` object, when it was not
    /// read in one pass (``ActionScan``).
    var actionTape = ActionTape()
    /// What the shape rules read from the line's (first) `action` object.
    var actionFacts = ActionFacts()
    private var scansActions = true
    /// Readings of `action` objects seen before, by their bytes.
    private var actionCache = ActionCache()
    private var cachesActions = true
    /// `action` objects found in the cache so far.
    var actionCacheHits: Int { actionCache.hits }
    /// Actions the cache will read without a lookup (paused, for tests).
    var actionCacheLookupsToSkip: Int { actionCache.lookupsToSkip }
    /// `action` objects read in one pass (``ActionScan``) so far.
    private(set) var actionsScanned = 0
    /// For the most recently accepted onboarding event whose `action` the
    /// cache holds: its way and that way's fill (``ActionCache/fill(of:)``),
    /// else nil. Two events with the same way and fill have the same `action`
    /// bytes, so whatever a caller derives from one event's action fields
    /// (the answer's interned ids: ``PartialAggregate``) holds for the other.
    private(set) var cachedAction: (way: Int, fill: UInt64)?
    private var line = UnsafeRawBufferPointer(start: nil, count: 0)
    /// The last timestamp's date (consecutive lines mostly share it).
    private var dates = TimestampParser.DateCache()
    private let keyTable = EnvelopeKeyTable.shared

    /// A parser; `cachingActions: false` validates and reads every `action`
    /// afresh (the reference the cache is tested against), and
    /// `scanningActions: false` reads every one through its recorded
    /// structure (the reference ``ActionScan`` is tested against).
    init(cachingActions: Bool = true, scanningActions: Bool = true) {
        cachesActions = cachingActions
        scansActions = scanningActions
        arena.reserveCapacity(4096)
        scratchForKeys.reserveCapacity(256)
        options.reserveCapacity(16)
    }

    /// A parser that has allocated nothing yet (a placeholder to swap with).
    static var unallocated: EventParser { EventParser(unallocated: ()) }

    private init(unallocated: Void) {}

    /// The envelope keys plus `action`, as found at the top level.
    private struct Envelope {
        /// Values by ``EnvelopeKey`` raw value; the last slot takes every other
        /// key's value, and is never read.
        private var values: (JSONValue, JSONValue, JSONValue, JSONValue, JSONValue, JSONValue, JSONValue, JSONValue)
        /// Bit k: slot k holds a value.
        private var present: UInt8 = 0
        var actionRepeated = false
        /// How the ``ActionCache`` lookup of `action` went (nil: not looked up).
        var actionProbe: ActionCache.Probe?
        /// `action` was read in one pass into ``EventParser/actionFacts``
        /// (else, unless found in the cache, into ``EventParser/actionTape``).
        var actionScanned = false

        init() {
            let none = JSONValue(start: 0, end: 0, kind: .null, flag: false)
            values = (none, none, none, none, none, none, none, none)
        }

        subscript(key: EnvelopeKey) -> JSONValue? {
            guard present & (1 &<< key.rawValue) != 0 else { return nil }
            return withUnsafeBytes(of: values) {
                $0.load(fromByteOffset: key.rawValue * MemoryLayout<JSONValue>.stride, as: JSONValue.self)
            }
        }

        /// Stores the value of the key in `slot`; false when an envelope key
        /// other than `action` repeats (invalid JSON for the SPEC).
        @inline(__always)
        mutating func store(_ value: JSONValue, slot: Int) -> Bool {
            let bit = UInt8(truncatingIfNeeded: 1 &<< slot) & 0x7F  // the other-keys slot is never "present"
            if present & bit != 0 {
                guard slot == EnvelopeKey.action.rawValue else { return false }
                actionRepeated = true
                return true
            }
            present |= bit
            withUnsafeMutableBytes(of: &values) {
                $0.storeBytes(of: value, toByteOffset: slot &* MemoryLayout<JSONValue>.stride, as: JSONValue.self)
            }
            return true
        }

        var eventID: JSONValue? { self[.eventID] }
        var eventType: JSONValue? { self[.eventType] }
        var timestamp: JSONValue? { self[.timestamp] }
        var deviceID: JSONValue? { self[.deviceID] }
        var profileID: JSONValue? { self[.profileID] }
        var customerUserID: JSONValue? { self[.customerUserID] }
        var action: JSONValue? { self[.action] }
    }

    /// Parses `bytes` (one non-blank line, without its line end).
    mutating func parse(_ bytes: UnsafeRawBufferPointer) -> Outcome {
        line = bytes
        startLine()
        var scanner = JSONScanner(bytes)

        // 1. JSON validity and the envelope.
        let first = scanner.skipWhitespace(0)
        guard first < scanner.end, scanner.byte(first) == UInt8(ascii: "{") else {
            guard let value = scanner.scanValue(at: first), scanner.skipWhitespace(value.end) == scanner.end else {
                return .rejected(.invalidJSON)
            }
            return .rejected(.notAnObject)
        }
        var envelope = Envelope()
        guard let after = scanTopLevel(&scanner, from: first, into: &envelope),
              scanner.skipWhitespace(after) == scanner.end
        else { return .rejected(.invalidJSON) }
        return interpret(&envelope, in: &scanner)
    }

    /// Parses the line at the start of `text` (the rest of a chunk) without
    /// first looking for its end, when the line is an object followed only
    /// by whitespace up to a line feed or the end of `text`: that object is
    /// the line, and its line end is found as the scan passes it. Returns
    /// the outcome, where the line's content ends (before a CR that precedes
    /// its line feed) and where the line ends (its line feed, or the end of
    /// `text`); nil for any other line, whose end the caller finds and which
    /// it passes to ``parse(_:)``.
    ///
    /// The same outcome as ``parse(_:)`` on the line: the scanner never
    /// passes a line feed (it is not whitespace inside a line, nor allowed
    /// raw in a string), so the object lies within the line, and what
    /// follows it is the line's end. A line of another shape (not an object,
    /// invalid, or followed by anything but whitespace) is read again, whole,
    /// by ``parse(_:)``, which decides.
    ///
    /// Performance: no `memchr` per line for its end, a pass over every byte
    /// (about 2 % of all instructions on the generator's exports).
    mutating func parseLine(atStartOf text: UnsafeRawBufferPointer) -> (outcome: Outcome, contentEnd: Int, lineEnd: Int)? {
        var scanner = JSONScanner(text)
        let first = scanner.skipWhitespace(0)
        guard first < scanner.end, scanner.byte(first) == UInt8(ascii: "{") else { return nil }
        startLine()
        var envelope = Envelope()
        guard let after = scanTopLevel(&scanner, from: first, into: &envelope) else { return nil }
        let lineEnd = scanner.skipWhitespace(after)
        var contentEnd = lineEnd
        if lineEnd < scanner.end {
            guard scanner.byte(lineEnd) == 0x0A else { return nil }
            if scanner.byte(lineEnd - 1) == 0x0D { contentEnd -= 1 }
        }
        line = UnsafeRawBufferPointer(rebasing: text[0..<contentEnd])
        return (interpret(&envelope, in: &scanner), contentEnd, lineEnd)
    }

    /// Forgets what the last line left behind.
    @inline(__always)
    private mutating func startLine() {
        cachedAction = nil
        // Most lines have no options: skip the (generic, not free) emptying
        // of an array that is empty already. The arena is emptied only once
        // it holds more than 64 KiB: the last line's decoded strings are dead
        // once this line starts, and emptying it per line cost a call where
        // many lines have escapes.
        if arena.count > Self.arenaBytesKept { arena.removeAll(keepingCapacity: true) }
        if !options.isEmpty { options.removeAll(keepingCapacity: true) }
    }

    /// SPEC §2's checks after the first (valid JSON, an object), on the
    /// envelope that scanning the line found.
    @inline(__always)
    private mutating func interpret(_ envelope: inout Envelope, in scanner: inout JSONScanner) -> Outcome {
        var type = EventType.unknown
        var typeName = StringRef.empty
        if let value = envelope.eventType, value.kind == .string {
            typeName = string(value, in: scanner)
            type = withBytes(of: typeName) { EventType(matching: $0) }
        }

        // Repeated keys the SPEC reads inside `action` are invalid JSON too.
        var action = ActionFields()
        var cachedFingerprint: UInt64?
        if type.isOnboarding {
            if envelope.actionRepeated { return .rejected(.invalidJSON) }
            if let value = envelope.action, value.kind == .object {
                if case .hit(let way, _)? = envelope.actionProbe,
                   let fingerprint = actionCache.reading(
                       way, for: type, objectStart: value.start, into: &action, options: &options, arena: &arena) {
                    cachedFingerprint = fingerprint
                } else {
                    if !envelope.actionScanned {
                        if case .hit? = envelope.actionProbe {
                            // Found, but read so far only for the other onboarding
                            // type: record its structure now (it is valid JSON).
                            actionTape.reset()
                            _ = scanner.scanContainer(at: value.start, visitor: &actionTape)
                        }
                        guard readActionFactsFromTape(in: scanner) else { return .rejected(.invalidJSON) }
                    }
                    readAction(of: type, in: scanner, into: &action)
                }
            } else if let value = envelope.action, value.kind == .array {
                // Not of the shape (bad_action below), but the objects inside
                // it are `action` at depth: a repeated key there is invalid
                // JSON first. Read again only here (a rare, malformed line).
                actionTape.reset()
                _ = scanner.scanContainer(at: value.start, visitor: &actionTape)
                if actionTape.hasRepeatedKey(in: scanner) { return .rejected(.invalidJSON) }
            }
        }

        // 4. Missing fields.
        func isMissing(_ value: JSONValue?, nonEmpty: Bool) -> Bool {
            guard let value, !value.isNull else { return true }
            return nonEmpty && value.kind == .string && value.end - value.start == 2
        }
        if isMissing(envelope.eventID, nonEmpty: true) || isMissing(envelope.eventType, nonEmpty: false)
            || isMissing(envelope.timestamp, nonEmpty: false) {
            return .rejected(.missingField)
        }
        let isKnown = type != .unknown
        if isKnown && (isMissing(envelope.deviceID, nonEmpty: true) || isMissing(envelope.profileID, nonEmpty: true)) {
            return .rejected(.missingField)
        }
        if type == .identify && isMissing(envelope.customerUserID, nonEmpty: true) {
            return .rejected(.missingField)
        }

        // 5. Wrong types.
        let eventIDValue = envelope.eventID!, timestampValue = envelope.timestamp!
        if eventIDValue.kind != .string || envelope.eventType!.kind != .string
            || (timestampValue.kind != .string && timestampValue.kind != .number) {
            return .rejected(.wrongType)
        }
        if isKnown {
            if envelope.deviceID!.kind != .string || envelope.profileID!.kind != .string {
                return .rejected(.wrongType)
            }
            if let cuid = envelope.customerUserID, !cuid.isNull, cuid.kind != .string {
                return .rejected(.wrongType)
            }
        }

        // 6. Timestamp.
        let instant: Instant?
        if timestampValue.kind == .number {
            instant = timestampValue.isPlainInteger ? TimestampParser.parseEpochMilliseconds(scanner.token(timestampValue)) : nil
        } else {
            // Two statements: in `withBytes(of: string(…))` the receiver would be
            // read before `string` appends to the arena (regression test:
            // EventParserTests.testEscapedTimestampsAreDecodedFirst).
            let text = string(timestampValue, in: scanner)
            var dates = self.dates  // a local: the closure must not capture `self` while `withBytes` reads it
            instant = withBytes(of: text) { TimestampParser.parseRFC3339($0, dates: &dates) }
            self.dates = dates
        }
        guard let instant else { return .rejected(.badTimestamp) }

        // 7. Action shape.
        if type.isOnboarding && !action.isWellFormed { return .rejected(.badAction) }

        // Accepted.
        var parsed = ParsedEvent()
        parsed.type = type
        parsed.instant = instant
        parsed.eventID = string(eventIDValue, in: scanner)
        parsed.deviceID = nonEmptyString(envelope.deviceID, in: scanner)
        parsed.profileID = nonEmptyString(envelope.profileID, in: scanner)
        parsed.customerUserID = nonEmptyString(envelope.customerUserID, in: scanner)
        if type.isOnboarding {
            parsed.onboardingID = action.onboardingID
            parsed.elementID = action.elementID
            parsed.analyticsName = action.name
            parsed.paramsType = action.paramsType
            parsed.answerKind = action.answerKind
        }
        event = parsed
        if let cachedFingerprint {
            event.contentFingerprint = cachedFingerprint
            if case .hit(let way, _)? = envelope.actionProbe { cachedAction = (way, actionCache.fill(of: way)) }
        } else if type.isOnboarding {
            event.contentFingerprint = actionFingerprint()
            if let probe = envelope.actionProbe, let value = envelope.action,
               let way = arena.withUnsafeBytes({ arena in
                   actionCache.remember(
                       probe, object: value, line: line, arena: arena, type: type, fields: action, options: options,
                       fingerprint: event.contentFingerprint)
               }) {
                cachedAction = (way, actionCache.fill(of: way))
            }
        } else if type == .unknown {
            // Unknown types differ by their spelling, which the type enum hides.
            event.contentFingerprint = withBytes(of: typeName) { ByteHash.hash($0, seed: 3) }
        }
        return .accepted
    }

    /// Validates the top-level object starting at `start` and records the
    /// envelope keys, and the structure of an `action` object in ``actionTape``.
    /// Returns the index after the object; nil when it is not valid JSON or
    /// an envelope key repeats.
    private mutating func scanTopLevel(_ scanner: inout JSONScanner, from start: Int, into envelope: inout Envelope) -> Int? {
        var i = scanner.skipWhitespace(start + 1)
        guard i < scanner.end else { return nil }
        if scanner.byte(i) != UInt8(ascii: "}") {
            while true {
                guard i < scanner.end, scanner.byte(i) == UInt8(ascii: "\"") else { return nil }
                let slot: Int
                let afterKey: Int
                // The table reads 17 bytes after the quote; shorter line ends
                // take the matcher.
                let tableFits = scanner.end - (i + 1) >= 17
                if tableFits, let known = keyTable.match(content: UnsafeRawPointer(scanner.base + i + 1)) {
                    // An envelope key and its closing quote: no scan needed.
                    (slot, afterKey) = (known.slot, i + 2 + known.length)
                } else {
                    guard let (end, keyEscapes) = scanner.scanString(at: i) else { return nil }
                    afterKey = end
                    if keyEscapes {
                        scanner.decodeString(JSONValue(start: i, end: afterKey, kind: .string, flag: true), into: &scratchForKeys)
                        slot = scratchForKeys.withUnsafeBytes { EnvelopeKey.slot(matching: $0) }
                    } else if tableFits {
                        slot = EnvelopeKey.otherSlot  // the table found no envelope key
                    } else {
                        slot = EnvelopeKey.slot(
                            matching: UnsafeRawBufferPointer(start: scanner.base + i + 1, count: afterKey - i - 2))
                    }
                }
                i = scanner.skipWhitespace(afterKey)
                guard i < scanner.end, scanner.byte(i) == UInt8(ascii: ":") else { return nil }
                i = scanner.skipWhitespaceOrOneSpace(i + 1)
                let value: JSONValue
                if slot == EnvelopeKey.action.rawValue && envelope.action == nil && i < scanner.end && scanner.byte(i) == UInt8(ascii: "{") {
                    let probe = cachesActions ? actionCache.lookup(in: scanner, at: i) : nil
                    envelope.actionProbe = probe
                    if case .hit(_, let length)? = probe {
                        // The same bytes as an object validated before: the same object.
                        value = JSONValue(start: i, end: i + length, kind: .object, flag: false)
                    } else if scansActions, let next = ActionScan.scan(&scanner, at: i, into: &actionFacts) {
                        envelope.actionScanned = true
                        actionsScanned &+= 1
                        value = JSONValue(start: i, end: next, kind: .object, flag: false)
                    } else {
                        // Not of the plain shape (or invalid): the general way decides.
                        actionTape.reset()
                        guard let next = scanner.scanContainer(at: i, visitor: &actionTape) else { return nil }
                        value = JSONValue(start: i, end: next, kind: .object, flag: false)
                    }
                } else if i < scanner.end && scanner.byte(i) == UInt8(ascii: "\"") {
                    // Most values are strings: scanned inline, without the
                    // general value dispatch.
                    guard let (next, escapes) = scanner.scanString(at: i) else { return nil }
                    value = JSONValue(start: i, end: next, kind: .string, flag: escapes)
                } else if scanner.fourBytes(at: i) == JSONScanner.nullBytes {
                    // An anonymous `customer_user_id`, on most lines of many
                    // exports: no call to the general value dispatch.
                    value = JSONValue(start: i, end: i &+ 4, kind: .null, flag: false)
                } else {
                    guard let scanned = scanner.scanValue(at: i) else { return nil }
                    value = scanned
                }
                guard envelope.store(value, slot: slot) else { return nil }
                i = scanner.skipWhitespace(value.end)
                guard i < scanner.end else { return nil }
                if scanner.byte(i) == UInt8(ascii: ",") {
                    i = scanner.skipWhitespaceOrOneSpace(i + 1)
                    continue
                }
                guard scanner.byte(i) == UInt8(ascii: "}") else { return nil }
                break
            }
        }
        return i + 1
    }

    // MARK: Strings

    /// A string value's content, decoding escapes into the arena when present.
    @inline(__always)
    mutating func string(_ value: JSONValue, in scanner: JSONScanner) -> StringRef {
        guard value.hasEscapes else {
            return StringRef(start: value.start + 1, count: value.end - value.start - 2, isDecoded: false)
        }
        return decodedString(value, in: scanner)
    }

    /// A string value with escapes, decoded into the arena (kept out of line:
    /// most strings have none).
    @inline(never)
    private mutating func decodedString(_ value: JSONValue, in scanner: JSONScanner) -> StringRef {
        let start = arena.count
        scanner.appendDecodedString(value, to: &arena)
        return StringRef(start: start, count: arena.count - start, isDecoded: true)
    }

    /// The content of a value that is a non-empty string, else nil.
    @inline(__always)
    mutating func nonEmptyString(_ value: JSONValue?, in scanner: JSONScanner) -> StringRef? {
        guard let value, value.kind == .string, value.end - value.start > 2 else { return nil }
        return string(value, in: scanner)
    }

    /// Calls `body` with the bytes of `ref`, valid only during the call.
    func withBytes<R>(of ref: StringRef, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        // Refs are made by this parser, within its line or arena: no bounds
        // check beyond a debug assertion (this is called several times a line).
        if ref.isDecoded {
            return arena.withUnsafeBytes { arena in
                assert(ref.start >= 0 && ref.start + ref.count <= arena.count)
                return body(UnsafeRawBufferPointer(start: arena.baseAddress.map { $0 + ref.start }, count: ref.count))
            }
        }
        assert(ref.start >= 0 && ref.start + ref.count <= line.count)
        return body(UnsafeRawBufferPointer(start: line.baseAddress.map { $0 + ref.start }, count: ref.count))
    }

    /// Appends an option of the current answer.
    mutating func appendOption(_ option: OptionRefs) { options.append(option) }
}
