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
    /// Reads `action` (an object, recorded in ``actionTape`` while the line was
    /// validated) of an onboarding event: the fields the metrics use, its
    /// options, and whether it has the SPEC's shape.
    ///
    /// Returns false when any object inside `action` repeats a key: the SPEC
    /// reads `action` at any depth, and a repeat there is `invalid_json`,
    /// which outranks every shape problem.
    mutating func readAction(of type: EventType, in scanner: JSONScanner, into fields: inout ActionFields) -> Bool {
        if actionTape.hasRepeatedKey(in: scanner) { return false }
        let root = 0
        let isStateUpdate = type == .onboardingStateUpdated
        var elementID: JSONValue?, meta: Int?, params: Int?, name: JSONValue?
        if isStateUpdate {
            let m = members(of: root, "elementId", "meta", "params", in: scanner)
            (elementID, meta, params) = (value(m.0), m.1, m.2)
        } else {
            let m = members(of: root, "name", "meta", in: scanner)
            (name, meta) = (value(m.0), m.1)
        }

        var wellFormed = true
        // meta: {onboardingId, screenClientId?, screenIndex?, screensTotal?}
        if let meta, actionTape.entries[meta].value.kind == .object {
            let m = members(of: meta, "onboardingId", "screenClientId", "screenIndex", "screensTotal", in: scanner)
            if let onboarding = value(m.0), onboarding.kind == .string {
                fields.onboardingID = string(onboarding, in: scanner)
            } else {
                wellFormed = false
            }
            wellFormed = wellFormed && Self.isOptionalString(value(m.1)) && Self.isOptionalInteger(value(m.2))
                && Self.isOptionalInteger(value(m.3))
        } else {
            wellFormed = false
        }

        if isStateUpdate {
            if let elementID, elementID.kind == .string {
                fields.elementID = string(elementID, in: scanner)
            } else {
                wellFormed = false
            }
            if let params, actionTape.entries[params].value.kind == .object {
                let p = members(of: params, "type", "value", in: scanner)
                if let paramsType = value(p.0), paramsType.kind == .string {
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

    /// Whether `params.value` (the tape entry `entry`) has the shape
    /// `params.type` asks for; collects the options of answers.
    private mutating func readParamsValue(
        _ entry: Int?, type typeRef: StringRef, in scanner: JSONScanner, into fields: inout ActionFields
    ) -> Bool {
        enum ParamsType { case select, multiSelect, input, datePicker, other }
        let kind: ParamsType = withBytes(of: typeRef) { bytes in
            if bytes.equals("select") { return .select }
            if bytes.equals("multiSelect") { return .multiSelect }
            if bytes.equals("input") { return .input }
            if bytes.equals("datePicker") { return .datePicker }
            return .other
        }
        let valueKind = value(entry)?.kind
        switch kind {
        case .other:
            return true
        case .input:
            return valueKind == .object
        case .datePicker:
            guard let entry, valueKind == .object else { return false }
            let d = members(of: entry, "day", "month", "year", in: scanner)
            return Self.isOptionalInteger(value(d.0)) && Self.isOptionalInteger(value(d.1))
                && Self.isOptionalInteger(value(d.2))
        case .select:
            fields.answerKind = .select
            guard let entry, valueKind == .object else { return false }
            return readOption(entry, in: scanner)
        case .multiSelect:
            fields.answerKind = .multiSelect
            guard let entry, valueKind == .array else { return false }
            var wellFormed = true
            for element in actionTape.children(of: entry) {
                if actionTape.entries[element].value.kind == .object {
                    wellFormed = readOption(element, in: scanner) && wellFormed
                } else {
                    wellFormed = false
                }
            }
            return wellFormed
        }
    }

    /// Whether the option object at tape entry `object` is `{id, value?, label?}`; collects it.
    private mutating func readOption(_ object: Int, in scanner: JSONScanner) -> Bool {
        let o = members(of: object, "id", "value", "label", in: scanner)
        let id = value(o.0), optionValue = value(o.1), label = value(o.2)
        guard let id, id.kind == .string, Self.isOptionalString(optionValue), Self.isOptionalString(label) else {
            return false
        }
        let option = OptionRefs(
            id: string(id, in: scanner),
            value: optionValue.flatMap { $0.kind == .string ? string($0, in: scanner) : nil } ?? .empty,
            label: label.flatMap { $0.kind == .string ? string($0, in: scanner) : nil } ?? .empty)
        appendOption(option)
        return true
    }

    /// The tape entries of up to four keys of the object at entry `object`
    /// (nil where absent), without allocating. Repeated keys were ruled out
    /// before (``ActionTape/hasRepeatedKey(in:)``). An unused key position is
    /// the empty string, whose slot the caller ignores.
    private mutating func members(
        of object: Int, _ k0: StaticString, _ k1: StaticString, _ k2: StaticString = "",
        _ k3: StaticString = "", in scanner: JSONScanner
    ) -> (Int?, Int?, Int?, Int?) {
        var found: (Int?, Int?, Int?, Int?) = (nil, nil, nil, nil)
        func match(_ key: UnsafeRawBufferPointer, _ member: Int) {
            if key.equals(k0) { found.0 = member }
            else if key.equals(k1) { found.1 = member }
            else if key.equals(k2) { found.2 = member }
            else if key.equals(k3) { found.3 = member }
        }
        for member in actionTape.children(of: object) {
            actionTape.withKey(of: member, in: scanner, scratch: &scratchForKeys) { match($0, member) }
        }
        return found
    }

    /// The value of a tape entry.
    private func value(_ entry: Int?) -> JSONValue? {
        entry.map { actionTape.entries[$0].value }
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
