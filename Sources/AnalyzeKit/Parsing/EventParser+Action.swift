/// What the `action` object of an onboarding event contributes (SPEC §2,
/// "action shape"), read after the line was validated as JSON.
struct ActionFields {
    var isWellFormed = false
    var elementID: StringRef?
    var onboardingID: StringRef?
    var name: StringRef?
    var paramsType: StringRef?
    var answerKind = AnswerKind.none
}

extension EventParser {
    /// Reads `action` (an object) of an onboarding event: the fields the
    /// metrics use, its options, and whether it has the SPEC's shape.
    ///
    /// Returns false when any object inside `action` repeats a key: the SPEC
    /// reads `action` at any depth, and a repeat there is `invalid_json`,
    /// which outranks every shape problem.
    mutating func readAction(
        _ action: JSONValue, of type: EventType, in scanner: JSONScanner, into fields: inout ActionFields
    ) -> Bool {
        if scanner.hasRepeatedKey(inValueAt: action.start, occurrences: &keyOccurrences, scratch: &scratchForKeys) {
            return false
        }
        let isStateUpdate = type == .onboardingStateUpdated
        var elementID: JSONValue?, meta: JSONValue?, params: JSONValue?, name: JSONValue?
        let keys: [StaticString] = isStateUpdate ? ["elementId", "meta", "params"] : ["name", "meta"]
        guard let actionValues = readMembers(of: action, keys: keys, in: scanner) else { return false }
        if isStateUpdate {
            (elementID, meta, params) = (actionValues[0], actionValues[1], actionValues[2])
        } else {
            (name, meta) = (actionValues[0], actionValues[1])
        }

        var wellFormed = true
        // meta: {onboardingId, screenClientId?, screenIndex?, screensTotal?}
        if let meta, meta.kind == .object {
            guard let m = readMembers(of: meta, keys: ["onboardingId", "screenClientId", "screenIndex", "screensTotal"], in: scanner)
            else { return false }
            if let onboarding = m[0], onboarding.kind == .string {
                fields.onboardingID = string(onboarding, in: scanner)
            } else {
                wellFormed = false
            }
            wellFormed = wellFormed && Self.isOptionalString(m[1]) && Self.isOptionalInteger(m[2]) && Self.isOptionalInteger(m[3])
        } else {
            wellFormed = false
        }

        if isStateUpdate {
            if let elementID, elementID.kind == .string {
                fields.elementID = string(elementID, in: scanner)
            } else {
                wellFormed = false
            }
            if let params, params.kind == .object {
                guard let p = readMembers(of: params, keys: ["type", "value"], in: scanner) else { return false }
                if let paramsType = p[0], paramsType.kind == .string {
                    let typeRef = string(paramsType, in: scanner)
                    fields.paramsType = typeRef
                    guard let valueShape = readParamsValue(p[1], type: typeRef, in: scanner, into: &fields) else { return false }
                    wellFormed = wellFormed && valueShape
                } else {
                    wellFormed = false
                }
            } else {
                wellFormed = false
            }
        } else {
            if let name, name.kind == .string {
                fields.name = string(name, in: scanner)
            } else {
                wellFormed = false
            }
        }
        fields.isWellFormed = wellFormed
        return true
    }

    /// Checks `params.value` against `params.type`. nil: a read key repeats;
    /// otherwise whether the shape is right. Collects the options of answers.
    private mutating func readParamsValue(
        _ value: JSONValue?, type typeRef: StringRef, in scanner: JSONScanner, into fields: inout ActionFields
    ) -> Bool? {
        enum ParamsType { case select, multiSelect, input, datePicker, other }
        let kind: ParamsType = withBytes(of: typeRef) { bytes in
            if bytes.equals("select") { return .select }
            if bytes.equals("multiSelect") { return .multiSelect }
            if bytes.equals("input") { return .input }
            if bytes.equals("datePicker") { return .datePicker }
            return .other
        }
        switch kind {
        case .other:
            return true
        case .input:
            return value?.kind == .object
        case .datePicker:
            guard let value, value.kind == .object else { return false }
            guard let d = readMembers(of: value, keys: ["day", "month", "year"], in: scanner) else { return nil }
            return Self.isOptionalInteger(d[0]) && Self.isOptionalInteger(d[1]) && Self.isOptionalInteger(d[2])
        case .select:
            fields.answerKind = .select
            guard let value, value.kind == .object else { return false }
            return readOption(value, in: scanner)
        case .multiSelect:
            fields.answerKind = .multiSelect
            guard let value, value.kind == .array else { return false }
            var elements: [JSONValue] = []
            scanner.forEachElement(ofArrayAt: value.start) { elements.append($0); return true }
            var wellFormed = true
            for element in elements {
                if element.kind == .object {
                    guard let optionShape = readOption(element, in: scanner) else { return nil }
                    wellFormed = wellFormed && optionShape
                } else {
                    wellFormed = false
                }
            }
            return wellFormed
        }
    }

    /// An option object `{id, value?, label?}`. nil: a read key repeats.
    private mutating func readOption(_ object: JSONValue, in scanner: JSONScanner) -> Bool? {
        guard let o = readMembers(of: object, keys: ["id", "value", "label"], in: scanner) else { return nil }
        guard let id = o[0], id.kind == .string, Self.isOptionalString(o[1]), Self.isOptionalString(o[2]) else {
            return false
        }
        let option = OptionRefs(
            id: string(id, in: scanner),
            value: o[1].flatMap { $0.kind == .string ? string($0, in: scanner) : nil } ?? .empty,
            label: o[2].flatMap { $0.kind == .string ? string($0, in: scanner) : nil } ?? .empty)
        appendOption(option)
        return true
    }

    /// The values of `keys` in `object` (nil where absent). Always non-nil:
    /// repeated keys were ruled out before (``JSONScanner/hasRepeatedKey``).
    private mutating func readMembers(of object: JSONValue, keys: [StaticString], in scanner: JSONScanner) -> [JSONValue?]? {
        var found = [JSONValue?](repeating: nil, count: keys.count)
        scanner.forEachMember(ofObjectAt: object.start, scratch: &scratchForKeys) { key, value in
            for (k, name) in keys.enumerated() where key.equals(name) {
                found[k] = value
            }
            return true
        }
        return found
    }

    private static func isOptionalString(_ value: JSONValue?) -> Bool {
        guard let value, !value.isNull else { return true }
        return value.kind == .string
    }

    private static func isOptionalInteger(_ value: JSONValue?) -> Bool {
        guard let value, !value.isNull else { return true }
        return value.isPlainInteger
    }

    /// Hash of the action fields duplicates are compared on: `elementId`,
    /// `meta.onboardingId`, `name`, `params.type`, and the options' id / value /
    /// label in order (an absent value or label equals an empty one).
    func actionFingerprint() -> UInt64 {
        var h: UInt64 = 0x5bd1_e995
        for field in [event.elementID, event.onboardingID, event.analyticsName, event.paramsType] {
            h = ByteHash.combine(h, field.map { withBytes(of: $0) { ByteHash.hash($0, seed: 1) } } ?? 0x9e37)
        }
        h = ByteHash.combine(h, UInt64(options.count))
        for option in options {
            for part in [option.id, option.value, option.label] {
                h = ByteHash.combine(h, withBytes(of: part) { ByteHash.hash($0, seed: 2) })
            }
        }
        return h
    }
}
