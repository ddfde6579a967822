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
        if scanner.hasRepeatedKey(inValueAt: action.start, occurrences: &keyOccurrences) {
            return false
        }
        let isStateUpdate = type == .onboardingStateUpdated
        var elementID: JSONValue?, meta: JSONValue?, params: JSONValue?, name: JSONValue?
        if isStateUpdate {
            (elementID, meta, params, _) = readMembers(of: action, "elementId", "meta", "params", in: scanner)
        } else {
            (name, meta, _, _) = readMembers(of: action, "name", "meta", in: scanner)
        }

        var wellFormed = true
        // meta: {onboardingId, screenClientId?, screenIndex?, screensTotal?}
        if let meta, meta.kind == .object {
            let m = readMembers(of: meta, "onboardingId", "screenClientId", "screenIndex", "screensTotal", in: scanner)
            if let onboarding = m.0, onboarding.kind == .string {
                fields.onboardingID = string(onboarding, in: scanner)
            } else {
                wellFormed = false
            }
            wellFormed = wellFormed && Self.isOptionalString(m.1) && Self.isOptionalInteger(m.2) && Self.isOptionalInteger(m.3)
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
                let p = readMembers(of: params, "type", "value", in: scanner)
                if let paramsType = p.0, paramsType.kind == .string {
                    let typeRef = string(paramsType, in: scanner)
                    fields.paramsType = typeRef
                    let valueShape = readParamsValue(p.1, type: typeRef, in: scanner, into: &fields)
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

    /// Whether `params.value` has the shape `params.type` asks for; collects
    /// the options of answers.
    private mutating func readParamsValue(
        _ value: JSONValue?, type typeRef: StringRef, in scanner: JSONScanner, into fields: inout ActionFields
    ) -> Bool {
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
            let d = readMembers(of: value, "day", "month", "year", in: scanner)
            return Self.isOptionalInteger(d.0) && Self.isOptionalInteger(d.1) && Self.isOptionalInteger(d.2)
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
                    wellFormed = readOption(element, in: scanner) && wellFormed
                } else {
                    wellFormed = false
                }
            }
            return wellFormed
        }
    }

    /// Whether an option object is `{id, value?, label?}`; collects it.
    private mutating func readOption(_ object: JSONValue, in scanner: JSONScanner) -> Bool {
        let o = readMembers(of: object, "id", "value", "label", in: scanner)
        guard let id = o.0, id.kind == .string, Self.isOptionalString(o.1), Self.isOptionalString(o.2) else {
            return false
        }
        let option = OptionRefs(
            id: string(id, in: scanner),
            value: o.1.flatMap { $0.kind == .string ? string($0, in: scanner) : nil } ?? .empty,
            label: o.2.flatMap { $0.kind == .string ? string($0, in: scanner) : nil } ?? .empty)
        appendOption(option)
        return true
    }

    /// The values of up to four keys in `object` (nil where absent), without
    /// allocating. Repeated keys were ruled out before (``JSONScanner/hasRepeatedKey``).
    /// An unused key position is the empty string, whose slot the caller ignores.
    private mutating func readMembers(
        of object: JSONValue, _ k0: StaticString, _ k1: StaticString, _ k2: StaticString = "",
        _ k3: StaticString = "", in scanner: JSONScanner
    ) -> (JSONValue?, JSONValue?, JSONValue?, JSONValue?) {
        var found: (JSONValue?, JSONValue?, JSONValue?, JSONValue?) = (nil, nil, nil, nil)
        scanner.forEachMember(ofObjectAt: object.start, scratch: &scratchForKeys) { key, value in
            if key.equals(k0) { found.0 = value }
            else if key.equals(k1) { found.1 = value }
            else if key.equals(k2) { found.2 = value }
            else if key.equals(k3) { found.3 = value }
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
