// libFuzzer harness for the line parser / validator (`EventParser`, which drives
// `JSONScanner`, `TimestampParser` and the `action` shape checks).
//
// Run as Fuzz/.build/fuzz-parser (see Entry.swift). One input
// is one NDJSON line without its line end (libFuzzer hands arbitrary bytes,
// newlines included; the parser must cope with anything).
//
// Besides "does not crash / trip ASan", every input checks these invariants and
// aborts (a libFuzzer crash) when one fails:
//   1. Determinism: a fresh parser and a long-lived parser that has parsed every
//      earlier input give the same outcome and, when accepted, the same fields
//      (no state leaks between lines through the reused arena / scratch buffers).
//   2. Placement: the same bytes at another address, surrounded by JSON
//      whitespace, give the same outcome and fields (SPEC §2: whitespace is free).
//   3. An accepted event has a non-empty event_id, an instant in years
//      0001–9999, and on known types non-empty device_id and profile_id.
//   4. Damage: an accepted line with its closing `}` removed, or with a byte of
//      garbage appended, is `invalid_json` (both are invalid JSON).
//   5. The `action` cache changes nothing: a parser that never caches gives the
//      same outcome and fields as the fresh one (whose second parse of the same
//      bytes, in invariant 1, is a cache hit) and the long-lived one.
//   6. Reading `action` in one pass changes nothing: a parser that always
//      reads it through its recorded structure (`scanningActions: false`)
//      gives the same outcome and fields as the uncached one.

/// The parser reused across every input of this process (invariant 1).
nonisolated(unsafe) private var longLivedParser = EventParser()

func fuzzParser(_ bytes: UnsafeRawBufferPointer) {
    // The pipeline never hands the parser an empty or blank line; skip those.
    if ChunkReader.isBlank(bytes) { return }

    var fresh = EventParser()
    let first = ParseSnapshot(parsing: bytes, with: &fresh)
    let second = ParseSnapshot(parsing: bytes, with: &longLivedParser)
    guard first == second else {
        fuzzFailure("fresh and long-lived parser disagree", first, second)
    }
    let again = ParseSnapshot(parsing: bytes, with: &fresh)
    guard first == again else {
        fuzzFailure("the same parser gives two outcomes for the same bytes", first, again)
    }
    var uncached = EventParser(cachingActions: false)
    let reference = ParseSnapshot(parsing: bytes, with: &uncached)
    guard first == reference else {
        fuzzFailure("the action cache changed the outcome", reference, first)
    }
    var recorded = EventParser(cachingActions: false, scanningActions: false)
    let general = ParseSnapshot(parsing: bytes, with: &recorded)
    guard general == reference else {
        fuzzFailure("reading action in one pass changed the outcome", general, reference)
    }

    // 2. Same bytes elsewhere, wrapped in JSON whitespace.
    var wrapped: [UInt8] = [0x20, 0x09]
    wrapped.append(contentsOf: bytes)
    wrapped.append(contentsOf: [0x0D, 0x20])
    let moved = wrapped.withUnsafeBytes { ParseSnapshot(parsing: $0, with: &fresh) }
    guard first == moved else {
        fuzzFailure("surrounding whitespace changed the outcome", first, moved)
    }

    guard first.reason == nil else { return }

    // 3. What an accepted event must hold.
    guard !first.fields[0].isEmpty else { fuzzFailure("accepted with an empty event_id", first, first) }
    guard first.instant >= Instant.minimum && first.instant <= Instant.maximum,
          first.instant.nanoseconds < 1_000_000_000
    else { fuzzFailure("accepted with an instant outside 0001–9999", first, first) }
    if first.type != EventType.unknown.rawValue {
        // Present (marker byte) and non-empty (at least one byte after it).
        guard first.fields[1].count > 1 && first.fields[2].count > 1 else {
            fuzzFailure("known type accepted without device_id / profile_id", first, first)
        }
    }

    // 4. Damaged copies of an accepted line are invalid JSON.
    var trimmed = Array(bytes)
    while let last = trimmed.last, last == 0x20 || last == 0x09 || last == 0x0A || last == 0x0D { trimmed.removeLast() }
    if trimmed.last == UInt8(ascii: "}") {
        trimmed.removeLast()
        if !ChunkReader.isBlank(trimmed.withUnsafeBytes { $0 }) {
            let cut = trimmed.withUnsafeBytes { ParseSnapshot(parsing: $0, with: &fresh) }
            guard cut.reason == RejectReason.invalidJSON.rawValue else {
                fuzzFailure("an object without its closing brace was not invalid_json", first, cut)
            }
        }
    }
    var extended = Array(bytes)
    extended.append(UInt8(ascii: "x"))
    let garbage = extended.withUnsafeBytes { ParseSnapshot(parsing: $0, with: &fresh) }
    guard garbage.reason == RejectReason.invalidJSON.rawValue else {
        fuzzFailure("data after the value was not invalid_json", first, garbage)
    }
}

/// Everything observable about one parse, with string fields copied out as bytes
/// (StringRefs point into the line or the arena, which the next parse reuses).
struct ParseSnapshot: Equatable {
    /// nil when accepted.
    var reason: UInt8?
    var type: UInt8 = 0
    var instant = Instant(seconds: 0, nanoseconds: 0)
    var answerKind: UInt8 = 0
    var fingerprint: UInt64 = 0
    /// eventID, then presence-marked device, profile, customer user, onboarding,
    /// element, analytics name, params type; then id/value/label per option.
    var fields: [[UInt8]] = []

    init(parsing line: UnsafeRawBufferPointer, with parser: inout EventParser) {
        switch parser.parse(line) {
        case .rejected(let why):
            reason = why.rawValue
        case .accepted:
            let event = parser.event
            type = event.type.rawValue
            instant = event.instant
            answerKind = event.answerKind.rawValue
            fingerprint = event.contentFingerprint
            func bytes(_ ref: StringRef?) -> [UInt8] {
                // A leading marker tells "absent" ([]) from "present but empty" ([1]).
                guard let ref else { return [] }
                return [1] + parser.withBytes(of: ref) { Array($0) }
            }
            fields.append(parser.withBytes(of: event.eventID) { Array($0) })
            fields.append(bytes(event.deviceID))
            fields.append(bytes(event.profileID))
            fields.append(bytes(event.customerUserID))
            fields.append(bytes(event.onboardingID))
            fields.append(bytes(event.elementID))
            fields.append(bytes(event.analyticsName))
            fields.append(bytes(event.paramsType))
            for option in parser.options {
                fields.append(bytes(option.id))
                fields.append(bytes(option.value))
                fields.append(bytes(option.label))
            }
        }
    }

    var summary: String {
        func text(_ b: [UInt8]) -> String { String(decoding: b, as: UTF8.self).debugDescription }
        if let reason { return "rejected(\(RejectReason(rawValue: reason).map(\.name) ?? "?"))" }
        return "accepted(type \(type), instant \(instant.seconds).\(instant.nanoseconds), kind \(answerKind), "
            + "fingerprint \(fingerprint), fields \(fields.map(text)))"
    }
}

private func fuzzFailure(_ what: String, _ a: ParseSnapshot, _ b: ParseSnapshot) -> Never {
    fuzzFailure("parser: \(what)\n  first:  \(a.summary)\n  second: \(b.summary)")
}
