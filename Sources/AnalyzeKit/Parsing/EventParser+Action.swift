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
    /// Notes the ``ActionFacts`` of `action` (an object, recorded in
    /// ``actionTape`` while the line was validated) in ``actionFacts``.
    ///
    /// Returns false when any object inside `action` repeats a key: the SPEC
    /// reads `action` at any depth, and a repeat there is `invalid_json`
    /// (on the onboarding types), which outranks every shape problem.
    mutating func readActionFactsFromTape(in scanner: JSONScanner) -> Bool {
        if actionTape.hasRepeatedKey(in: scanner) { return false }
        actionFacts.reset()
        func value(_ entry: Int?) -> JSONValue? { entry.map { actionTape.entries[$0].value } }
        func option(_ object: Int) -> ActionFacts.Option {
            let o = members(of: object, "id", "value", "label", in: scanner)
            return ActionFacts.Option(id: value(o.0), value: value(o.1), label: value(o.2))
        }
        let root = members(of: 0, "elementId", "name", "meta", "params", in: scanner)
        actionFacts.elementID = value(root.0)
        actionFacts.name = value(root.1)
        if let meta = root.2 {
            actionFacts.metaKind = actionTape.entries[meta].value.kind
            if actionFacts.metaKind == .object {
                let m = members(of: meta, "onboardingId", "screenClientId", "screenIndex", "screensTotal", in: scanner)
                (actionFacts.onboardingID, actionFacts.screenClientID) = (value(m.0), value(m.1))
                (actionFacts.screenIndex, actionFacts.screensTotal) = (value(m.2), value(m.3))
            }
        }
        if let params = root.3 {
            actionFacts.paramsKind = actionTape.entries[params].value.kind
            if actionFacts.paramsKind == .object {
                let p = members(of: params, "type", "value", in: scanner)
                actionFacts.paramsType = value(p.0)
                if let entry = p.1 {
                    actionFacts.valueKind = actionTape.entries[entry].value.kind
                    if actionFacts.valueKind == .object {
                        actionFacts.valueOption = option(entry)
                        let d = members(of: entry, "day", "month", "year", in: scanner)
                        (actionFacts.day, actionFacts.month, actionFacts.year) = (value(d.0), value(d.1), value(d.2))
                    } else if actionFacts.valueKind == .array {
                        for element in actionTape.children(of: entry) {
                            let isObject = actionTape.entries[element].value.kind == .object
                            actionFacts.elements.append(isObject ? option(element) : nil)
                        }
                    }
                }
            }
        }
        return true
    }

    /// Reads the fields the metrics use from ``actionFacts`` (the `action`
    /// object of an onboarding event of `type`), its options, and whether it
    /// has the SPEC's shape.
    ///
    /// The facts are read in place, field by field (a copy of the whole
    /// struct, some 330 bytes, cost more than the reading).
    mutating func readAction(of type: EventType, in scanner: JSONScanner, into fields: inout ActionFields) {
        var wellFormed = true
        // meta: {onboardingId, screenClientId?, screenIndex?, screensTotal?}
        if actionFacts.metaKind == .object {
            if let onboarding = actionFacts.onboardingID, onboarding.kind == .string {
                fields.onboardingID = string(onboarding, in: scanner)
            } else {
                wellFormed = false
            }
            wellFormed = wellFormed && Self.isOptionalString(actionFacts.screenClientID)
                && Self.isOptionalInteger(actionFacts.screenIndex) && Self.isOptionalInteger(actionFacts.screensTotal)
        } else {
            wellFormed = false
        }

        if type == .onboardingStateUpdated {
            if let elementID = actionFacts.elementID, elementID.kind == .string {
                fields.elementID = string(elementID, in: scanner)
            } else {
                wellFormed = false
            }
            if actionFacts.paramsKind == .object {
                if let paramsType = actionFacts.paramsType, paramsType.kind == .string {
                    let typeRef = string(paramsType, in: scanner)
                    fields.paramsType = typeRef
                    let valueShape = readParamsValue(type: typeRef, in: scanner, into: &fields)
                    wellFormed = wellFormed && valueShape
                } else {
                    wellFormed = false
                }
            } else {
                wellFormed = false
            }
        } else {
            if let name = actionFacts.name, name.kind == .string {
                fields.name = string(name, in: scanner)
            } else {
                wellFormed = false
            }
        }
        fields.isWellFormed = wellFormed
    }

    /// Whether `params.value` has the shape `params.type` asks for; collects
    /// the options of answers.
    private mutating func readParamsValue(
        type typeRef: StringRef, in scanner: JSONScanner, into fields: inout ActionFields
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
            return actionFacts.valueKind == .object
        case .datePicker:
            guard actionFacts.valueKind == .object else { return false }
            return Self.isOptionalInteger(actionFacts.day) && Self.isOptionalInteger(actionFacts.month)
                && Self.isOptionalInteger(actionFacts.year)
        case .select:
            fields.answerKind = .select
            guard actionFacts.valueKind == .object else { return false }
            return readOption(actionFacts.valueOption, in: scanner)
        case .multiSelect:
            fields.answerKind = .multiSelect
            guard actionFacts.valueKind == .array else { return false }
            var wellFormed = true
            for element in actionFacts.elements {
                if let option = element {
                    wellFormed = readOption(option, in: scanner) && wellFormed
                } else {
                    wellFormed = false
                }
            }
            return wellFormed
        }
    }

    /// Whether an option object is `{id, value?, label?}`; collects it.
    private mutating func readOption(_ option: ActionFacts.Option, in scanner: JSONScanner) -> Bool {
        guard let id = option.id, id.kind == .string, Self.isOptionalString(option.value),
              Self.isOptionalString(option.label)
        else {
            return false
        }
        let refs = OptionRefs(
            id: string(id, in: scanner),
            value: option.value.flatMap { $0.kind == .string ? string($0, in: scanner) : nil } ?? .empty,
            label: option.label.flatMap { $0.kind == .string ? string($0, in: scanner) : nil } ?? .empty)
        appendOption(refs)
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
    ///
    /// `mutating` though it changes nothing: called from ``parse(_:)`` (itself
    /// mutating) and not inlined, a non-mutating method is handed a copy of
    /// the whole parser, about 800 bytes, once per onboarding line that the
    /// action cache did not hold.
    mutating func actionFingerprint() -> UInt64 {
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
