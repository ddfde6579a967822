/// Noise: what real exports contain besides clean events. With probability `noise` per
/// real event, one *card* is dealt from a shuffled deck that holds every kind at least
/// once (so a few hundred cards cover all kinds) and the common kinds several times.
///
/// * duplicates — exact redeliveries (same bytes, next line), re-spelled redeliveries (other
///   key order / whitespace / timestamp spelling of the same instant / anonymous spelling /
///   `\u` escapes / an extra ignored key), late redeliveries, and conflicting copies (same
///   `event_id`, different profile, device, instant, customer user ID, type, label or
///   analytics name) — always AFTER the original, so the world is unchanged;
/// * late arrivals — the event itself is written hours later (out of timestamp order);
/// * a rejected line that carries the `event_id` of the event that follows it (a reject
///   never claims an id);
/// * blank lines (empty, spaces, tabs, a lone CR), a CRLF line end, a BOM in mid-file;
/// * accepted oddities — `null` meta fields and date parts, a repeated ignored key, unknown
///   types with odd `device_id` / `profile_id`, case variants of known type names;
/// * one rejected line for each variant of every SPEC §2 reason (see `NoiseKind`).
/// Rejected lines are built slowly through a tiny JSON tree (`J`) — they are rare.

enum NoiseKind: String, CaseIterable {
    // duplicates and order
    case redeliveryExact = "redelivery_exact"
    case redeliveryRespelled = "redelivery_respelled"
    case redeliveryLate = "redelivery_late"
    case conflictProfile = "conflicting_duplicate_profile"
    case conflictDevice = "conflicting_duplicate_device"
    case conflictTimestamp = "conflicting_duplicate_timestamp"
    case conflictCustomerUserId = "conflicting_duplicate_customer_user_id"
    case conflictType = "conflicting_duplicate_event_type"
    case conflictAction = "conflicting_duplicate_action"
    case lateArrival = "late_arrival"
    case rejectClaimsId = "reject_carrying_next_event_id"
    // structure
    case blankEmpty = "blank_line_empty"
    case blankSpaces = "blank_line_spaces"
    case blankTabs = "blank_line_tabs"
    case blankCR = "blank_line_cr"
    case crlfLine = "crlf_line_end"
    // accepted oddities
    case escapedSpelling = "escaped_spelling"
    case acceptedNulls = "accepted_null_optional_fields"
    case duplicateIgnoredKey = "accepted_duplicate_ignored_key"
    case unknownOddIds = "accepted_unknown_type_odd_ids"
    case caseVariantType = "accepted_case_variant_type"
    // invalid_json
    case truncatedLine = "invalid_json_truncated"
    case invalidUTF8Byte = "invalid_json_utf8_ff_byte"
    case invalidUTF8Overlong = "invalid_json_utf8_overlong"
    case invalidUTF8Surrogate = "invalid_json_utf8_encoded_surrogate"
    case invalidUTF8Truncated = "invalid_json_utf8_truncated_sequence"
    case invalidUTF8Continuation = "invalid_json_utf8_lone_continuation"
    case loneHighSurrogate = "invalid_json_lone_high_surrogate_escape"
    case loneLowSurrogate = "invalid_json_lone_low_surrogate_escape"
    case trailingCommaObject = "invalid_json_trailing_comma_object"
    case trailingCommaArray = "invalid_json_trailing_comma_array"
    case nanValue = "invalid_json_nan"
    case infinityValue = "invalid_json_infinity"
    case duplicateEventId = "invalid_json_duplicate_event_id"
    case duplicateProfileId = "invalid_json_duplicate_profile_id"
    case duplicateTimestamp = "invalid_json_duplicate_timestamp"
    case duplicateCustomerUserId = "invalid_json_duplicate_customer_user_id"
    case duplicateElementId = "invalid_json_duplicate_action_element_id"
    case duplicateMetaOnboardingId = "invalid_json_duplicate_action_meta_onboarding_id"
    case duplicateOptionId = "invalid_json_duplicate_action_option_id"
    case duplicateAnalyticsName = "invalid_json_duplicate_action_name"
    case blockComment = "invalid_json_block_comment"
    case lineComment = "invalid_json_line_comment"
    case dataAfterValue = "invalid_json_data_after_value"
    case singleQuotes = "invalid_json_single_quotes"
    case unquotedKey = "invalid_json_unquoted_key"
    case rawControlChar = "invalid_json_raw_control_character"
    case badEscape = "invalid_json_bad_escape"
    case leadingZero = "invalid_json_leading_zero"
    case plusNumber = "invalid_json_plus_sign_number"
    case bomMidFile = "invalid_json_bom_mid_file"
    // not_an_object
    case arrayLine = "not_an_object_array"
    case stringLine = "not_an_object_string"
    case numberLine = "not_an_object_number"
    case nullLine = "not_an_object_null"
    case boolLine = "not_an_object_true"
    case arrayOfObject = "not_an_object_array_of_event"
    // missing_field
    case noEventId = "missing_field_event_id_absent"
    case emptyEventId = "missing_field_event_id_empty"
    case nullEventId = "missing_field_event_id_null"
    case noEventType = "missing_field_event_type_absent"
    case nullEventType = "missing_field_event_type_null"
    case noTimestamp = "missing_field_timestamp_absent"
    case nullTimestamp = "missing_field_timestamp_null"
    case noDeviceId = "missing_field_device_id_absent"
    case emptyDeviceId = "missing_field_device_id_empty"
    case noProfileId = "missing_field_profile_id_absent"
    case nullProfileId = "missing_field_profile_id_null"
    case emptyProfileId = "missing_field_profile_id_empty"
    case identifyNoCuid = "missing_field_identify_customer_user_id_absent"
    case identifyNullCuid = "missing_field_identify_customer_user_id_null"
    case identifyEmptyCuid = "missing_field_identify_customer_user_id_empty"
    case stateNoDevice = "missing_field_onboarding_device_id"
    case unknownNoEventId = "missing_field_unknown_type_event_id"
    // wrong_type
    case eventIdNumber = "wrong_type_event_id_number"
    case eventTypeNumber = "wrong_type_event_type_number"
    case deviceIdNumber = "wrong_type_device_id_number"
    case profileIdObject = "wrong_type_profile_id_object"
    case cuidNumber = "wrong_type_customer_user_id_number"
    case cuidBoolIdentify = "wrong_type_identify_customer_user_id_bool"
    case timestampBool = "wrong_type_timestamp_bool"
    case timestampArray = "wrong_type_timestamp_array"
    // bad_timestamp
    case tsSpace = "bad_timestamp_space_separator"
    case tsMissingSeconds = "bad_timestamp_missing_seconds"
    case tsCompactOffset = "bad_timestamp_offset_without_colon"
    case tsNoOffset = "bad_timestamp_no_offset"
    case tsLeapSecond = "bad_timestamp_leap_second"
    case tsFeb30 = "bad_timestamp_february_30"
    case tsMonth13 = "bad_timestamp_month_13"
    case tsHour24 = "bad_timestamp_hour_24"
    case tsTenDigits = "bad_timestamp_ten_fraction_digits"
    case tsEmptyFraction = "bad_timestamp_empty_fraction"
    case tsExponent = "bad_timestamp_exponent_number"
    case tsDecimal = "bad_timestamp_decimal_number"
    case tsNumericString = "bad_timestamp_digits_in_string"
    case tsYearZero = "bad_timestamp_year_0000"
    case tsEpochTooLarge = "bad_timestamp_epoch_after_9999"
    case tsEpochTooSmall = "bad_timestamp_epoch_before_0001"
    case tsOffsetUnderflow = "bad_timestamp_offset_before_0001"
    case tsOffsetOverflow = "bad_timestamp_offset_after_9999"
    case tsOffsetMinutes60 = "bad_timestamp_offset_minutes_60"
    case tsTwoDigitYear = "bad_timestamp_two_digit_year"
    // bad_action
    case actionMissing = "bad_action_absent"
    case actionNull = "bad_action_null"
    case actionString = "bad_action_string"
    case actionArray = "bad_action_array"
    case elementIdNumber = "bad_action_element_id_number"
    case elementIdMissing = "bad_action_element_id_absent"
    case metaMissing = "bad_action_meta_absent"
    case metaNotObject = "bad_action_meta_string"
    case onboardingIdMissing = "bad_action_onboarding_id_absent"
    case onboardingIdNumber = "bad_action_onboarding_id_number"
    case paramsMissing = "bad_action_params_absent"
    case paramsTypeMissing = "bad_action_params_type_absent"
    case paramsTypeNumber = "bad_action_params_type_number"
    case selectValueString = "bad_action_select_value_string"
    case selectValueNoId = "bad_action_select_value_without_id"
    case selectIdNumber = "bad_action_select_id_number"
    case multiValueObject = "bad_action_multiselect_value_object"
    case multiElementString = "bad_action_multiselect_element_string"
    case multiElementNoId = "bad_action_multiselect_element_without_id"
    case inputValueString = "bad_action_input_value_string"
    case datePickerValueArray = "bad_action_datepicker_value_array"
    case datePickerDayString = "bad_action_datepicker_day_string"
    case datePickerMonthDecimal = "bad_action_datepicker_month_decimal"
    case screenIndexString = "bad_action_screen_index_string"
    case screensTotalDecimal = "bad_action_screens_total_decimal"
    case screenClientIdNumber = "bad_action_screen_client_id_number"
    case optionLabelNumber = "bad_action_option_label_number"
    case optionValueBool = "bad_action_option_value_bool"
    case analyticsNameMissing = "bad_action_analytics_name_absent"
    case analyticsNameNumber = "bad_action_analytics_name_number"
    case analyticsMetaMissing = "bad_action_analytics_meta_absent"

    /// The reject reason index (SPEC §2 order) for kinds that are one rejected line.
    var rejectReason: Int? {
        let n = rawValue
        for (i, prefix) in ["line_too_long", "invalid_json", "not_an_object", "missing_field", "wrong_type",
                            "bad_timestamp", "bad_action"].enumerated() where n.hasPrefix(prefix) {
            return i
        }
        if self == .rejectClaimsId { return 5 }
        return nil
    }

    /// Every kind once, the common ones several times.
    static let deck: [NoiseKind] = {
        var d = NoiseKind.allCases
        let extra: [(NoiseKind, Int)] = [
            (.redeliveryExact, 6), (.redeliveryRespelled, 6), (.redeliveryLate, 4), (.lateArrival, 8),
            (.conflictProfile, 1), (.conflictTimestamp, 1), (.conflictAction, 1), (.crlfLine, 2),
            (.escapedSpelling, 3), (.acceptedNulls, 2), (.truncatedLine, 3), (.blankEmpty, 2),
            (.rejectClaimsId, 1), (.duplicateIgnoredKey, 1),
        ]
        for (k, n) in extra { d += Array(repeating: k, count: n) }
        return d
    }()
}

/// A tiny JSON tree for the slow path (noise lines).
indirect enum J {
    case raw(String)  // JSON text, as is
    case bytes([UInt8])  // bytes, as is (may be invalid UTF-8)
    case str(String)  // a JSON string, escaped
    case obj([(String, J)])
    case arr([J])

    func write(_ o: inout [UInt8]) {
        switch self {
        case .raw(let s): o += Array(s.utf8)
        case .bytes(let b): o += b
        case .str(let s):
            o.append(0x22)
            o += jsonEscaped(s, asciiOnly: false)
            o.append(0x22)
        case .obj(let pairs):
            o.append(0x7B)
            for (i, (k, v)) in pairs.enumerated() {
                if i > 0 { o.append(0x2C) }
                o.append(0x22)
                o += jsonEscaped(k, asciiOnly: false)
                o.append(0x22)
                o.append(0x3A)
                v.write(&o)
            }
            o.append(0x7D)
        case .arr(let xs):
            o.append(0x5B)
            for (i, x) in xs.enumerated() {
                if i > 0 { o.append(0x2C) }
                x.write(&o)
            }
            o.append(0x5D)
        }
    }

    var bytes: [UInt8] {
        var o: [UInt8] = []
        write(&o)
        return o
    }
}

/// Ids and time of the event a noise line is made from.
struct NoiseContext {
    var device: String
    var profile: String
    var cuid: [UInt8]?  // JSON string contents (escaped), nil when anonymous
    var t: Int64
    var timestamp: String
    var kind: EventKind
    var freshId: String
}

extension Engine {
    // MARK: per-event noise

    mutating func emitReal(_ ev: Ev, slot: Int) {
        if !hugeDone && lineCount >= hugeAt { emitHugeLines(context: (ev, slot)) }
        let dev = persons[slot].devices[Int(ev.device)]
        let id = EventID(hi: rng.next(), lo: rng.next(), upper: dev.eventIdUpper)
        var style = drawStyle(ev, slot: slot)
        var card: NoiseKind? = nil
        if config.noise > 0 {
            if !pending.isEmpty, let i = pending.firstIndex(where: { applies($0, ev) }) {
                card = pending.remove(at: i)
            } else if rng.chance(config.noise) {
                let c = drawCard()
                if applies(c, ev) { card = c } else if pending.count < 32 { pending.append(c) }
            }
        }
        guard let card else {
            renderLine(ev, slot: slot, id: id, style: style, .event(ev.kind, ev.t))
            return
        }
        report.noise[card.rawValue, default: 0] += 1
        let real = LineAccount.event(ev.kind, ev.t)
        switch card {
        case .redeliveryExact:
            let start = out.count
            renderLine(ev, slot: slot, id: id, style: style, real)
            let end = out.count
            out.duplicate(from: start, to: end)
            report.bytes += end - start
            count(.duplicate(conflict: false))
        case .redeliveryRespelled:
            renderLine(ev, slot: slot, id: id, style: style, real)
            if rng.chance(0.3) { nextLineCRLF = true }
            renderLine(ev, slot: slot, id: id, style: respell(style, ev, slot: slot), .duplicate(conflict: false))
        case .redeliveryLate:
            renderLine(ev, slot: slot, id: id, style: style, real)
            let copy = renderDetached(ev, slot: slot, id: id, style: respell(style, ev, slot: slot))
            delay(copy, until: ev.t + lateDelay(), .duplicate(conflict: false))
        case .conflictProfile, .conflictDevice, .conflictTimestamp, .conflictCustomerUserId, .conflictType,
             .conflictAction:
            renderLine(ev, slot: slot, id: id, style: style, real)
            var alt = rng.chance(0.5) ? respell(style, ev, slot: slot) : style
            switch card {
            case .conflictProfile: alt.altProfile = rng.next() | 1
            case .conflictDevice:
                if ev.kind == .unknown && ev.a == UnknownKind.subscriptionRenewed.rawValue {
                    alt.altProfile = rng.next() | 1  // no device_id on this one
                } else {
                    alt.altDevice = rng.next() | 1
                }
            case .conflictTimestamp: alt.tsShift = Int64(rng.between(1, 5000)) * 1_000_000
            case .conflictCustomerUserId: alt.altCuid = rng.next() | 1
            case .conflictType: alt.typeOverride = true
            default:
                if ev.kind == .analytics { alt.altName = true } else { alt.altLabel = true }
            }
            if rng.chance(0.5) {
                renderLine(ev, slot: slot, id: id, style: alt, .duplicate(conflict: true))
            } else {
                let copy = renderDetached(ev, slot: slot, id: id, style: alt)
                delay(copy, until: ev.t + lateDelay(), .duplicate(conflict: true))
            }
        case .lateArrival:
            let bytes = renderDetached(ev, slot: slot, id: id, style: style)
            delay(bytes, until: ev.t + lateDelay(), real)
        case .rejectClaimsId:
            var ctx = context(ev, slot: slot)
            ctx.freshId = uuidText(id.hi, id.lo, upper: id.upper)
            writeLine(rejectLine(.tsSpace, ctx), .reject(5))
            renderLine(ev, slot: slot, id: id, style: style, real)
        case .crlfLine:
            nextLineCRLF = true
            renderLine(ev, slot: slot, id: id, style: style, real)
        case .escapedSpelling:
            style.escaped = true
            style.escapeId = true
            renderLine(ev, slot: slot, id: id, style: style, real)
        case .acceptedNulls:
            style.nulls = true
            renderLine(ev, slot: slot, id: id, style: style, real)
        case .duplicateIgnoredKey:
            style.dupIgnoredKey = true
            renderLine(ev, slot: slot, id: id, style: style, real)
        case .blankEmpty, .blankSpaces, .blankTabs, .blankCR:
            let text: [UInt8]
            switch card {
            case .blankEmpty: text = []
            case .blankSpaces: text = [0x20, 0x20, 0x20]
            case .blankTabs: text = [0x09, 0x20, 0x09]
            default: text = [0x20, 0x0D]
            }
            writeLine(text, .blank)
            renderLine(ev, slot: slot, id: id, style: style, real)
        case .unknownOddIds, .caseVariantType:
            let ctx = context(ev, slot: slot)
            // the odd line may spell the instant as epoch milliseconds (sub-ms digits dropped)
            writeLine(acceptedOddLine(card, ctx), .event(.unknown, card == .unknownOddIds ? floorDiv(ev.t, 1_000_000) * 1_000_000 : ev.t))
            renderLine(ev, slot: slot, id: id, style: style, real)
        default:
            let ctx = context(ev, slot: slot)
            writeLine(rejectLine(card, ctx), .reject(card.rejectReason ?? 1))
            renderLine(ev, slot: slot, id: id, style: style, real)
        }
    }

    private mutating func drawCard() -> NoiseKind {
        if deckPosition == 0 {
            // Fisher–Yates with our own generator
            var i = deck.count - 1
            while i > 0 {
                let j = rng.below(i + 1)
                deck.swapAt(i, j)
                i -= 1
            }
        }
        let c = deck[deckPosition]
        deckPosition = (deckPosition + 1) % deck.count
        return c
    }

    private func applies(_ card: NoiseKind, _ ev: Ev) -> Bool {
        switch card {
        case .acceptedNulls: return ev.kind == .state || ev.kind == .analytics
        case .conflictAction:
            if ev.kind == .analytics { return true }
            guard ev.kind == .state, ev.flags & Ev.otherInput == 0 else { return false }
            let q = cat.questions[Int(ev.b)]
            return (q.type == .select || (q.type == .multiSelect && ev.c != 0))
        default: return true
        }
    }

    private mutating func lateDelay() -> Int64 {
        Engine.minute + Int64(rng.exponential(5.0) * Double(Engine.hour))
    }

    func uuidText(_ hi: UInt64, _ lo: UInt64, upper: Bool) -> String {
        var b = ByteBuffer(capacity: 40)
        b.uuid(hi, lo, upper: upper)
        let s = String(decoding: UnsafeRawBufferPointer(start: b.base, count: b.count), as: UTF8.self)
        b.release()
        return s
    }

    func rfc3339Text(_ ns: Int64) -> String {
        var b = ByteBuffer(capacity: 40)
        b.rfc3339(ns: ns, zone: 0, offsetMinutes: 0, lowerT: false, fractionDigits: max(3, neededFractionDigits(ns)))
        let s = String(decoding: UnsafeRawBufferPointer(start: b.base, count: b.count), as: UTF8.self)
        b.release()
        return s
    }

    mutating func context(_ ev: Ev, slot: Int) -> NoiseContext {
        let dev = persons[slot].devices[Int(ev.device)]
        let p = Int(ev.profile)
        return NoiseContext(
            device: uuidText(dev.hi, dev.lo, upper: dev.upper),
            profile: uuidText(persons[slot].profileHi[p], persons[slot].profileLo[p], upper: false),
            cuid: ev.cuid == 0 ? nil : persons[slot].cuids[Int(ev.cuid) - 1].plain,
            t: ev.t, timestamp: rfc3339Text(ev.t), kind: ev.kind,
            freshId: uuidText(rng.next(), rng.next(), upper: false))
    }

    // MARK: accepted odd lines

    private mutating func acceptedOddLine(_ kind: NoiseKind, _ c: NoiseContext) -> [UInt8] {
        let cuid: J = c.cuid.map { .bytes([0x22] + $0 + [0x22]) } ?? .raw("null")
        var pairs: [(String, J)] = [("event_id", .str(c.freshId))]
        if kind == .caseVariantType {
            let names = ["Identify", "SDK_ACTIVATE", "Logout", "Onboarding_Analytics", "sdk_activate "]
            pairs += [("event_type", .str(names[rng.below(names.count)])), ("timestamp", .str(c.timestamp)),
                      ("device_id", .str(c.device)), ("profile_id", .str(c.profile)), ("customer_user_id", cuid),
                      ("action", .raw("\"not checked on unknown types\""))]
        } else {
            pairs += [("event_type", .str("push_received")), ("timestamp", .raw(String(floorDiv(c.t, 1_000_000))))]
            switch rng.below(4) {
            case 0: pairs += [("device_id", .raw("12345")), ("profile_id", .str(c.profile))]
            case 1: pairs += [("device_id", .str(c.device)), ("profile_id", .str(""))]
            case 2: pairs += [("profile_id", .str(c.profile)), ("customer_user_id", .raw("42"))]
            default: pairs += [("device_id", .raw("null")), ("profile_id", .obj([("id", .str(c.profile))]))]
            }
            pairs += [("campaign", .obj([("name", .str("Black Friday, 50% off")), ("name", .str("dup key, ignored"))]))]
        }
        return J.obj(pairs).bytes
    }

    // MARK: rejected lines

    func envelope(_ c: NoiseContext, type: String, id: J? = nil, eventType: J? = nil, ts: J? = nil,
                  device: J?? = nil, profile: J?? = nil, cuid: J? = nil) -> [(String, J)] {
        var p: [(String, J)] = []
        if let id { p.append(("event_id", id)) } else { p.append(("event_id", .str(c.freshId))) }
        p.append(("event_type", eventType ?? .str(type)))
        p.append(("timestamp", ts ?? .str(c.timestamp)))
        switch device {
        case .none: p.append(("device_id", .str(c.device)))
        case .some(.none): break
        case .some(.some(let d)): p.append(("device_id", d))
        }
        switch profile {
        case .none: p.append(("profile_id", .str(c.profile)))
        case .some(.none): break
        case .some(.some(let d)): p.append(("profile_id", d))
        }
        if let cuid { p.append(("customer_user_id", cuid)) }
        return p
    }

    func meta(onboardingId: J? = .str("onboarding_main_v3"), clientId: J? = .str("goal_screen"),
              index: J? = .raw("1"), total: J? = .raw("6"), duplicateOnboardingId: Bool = false) -> J {
        var p: [(String, J)] = []
        if let onboardingId { p.append(("onboardingId", onboardingId)) }
        if duplicateOnboardingId { p.append(("onboardingId", .str("onboarding_other"))) }
        if let clientId { p.append(("screenClientId", clientId)) }
        if let index { p.append(("screenIndex", index)) }
        if let total { p.append(("screensTotal", total)) }
        return .obj(p)
    }

    func option(id: J? = .str("stay_fit"), value: J? = .str("stay_fit"), label: J? = .str("Stay fit, healthy & happy"),
                duplicateId: Bool = false) -> J {
        var p: [(String, J)] = []
        if let id { p.append(("id", id)) }
        if duplicateId { p.append(("id", .str("lose_weight"))) }
        if let value { p.append(("value", value)) }
        if let label { p.append(("label", label)) }
        return .obj(p)
    }

    func stateAction(elementId: J? = .str("goal_selector"), meta m: J? = nil, type: J? = .str("select"),
                     value: J? = nil, params: J?? = nil, duplicateElementId: Bool = false) -> J {
        var p: [(String, J)] = []
        if let elementId { p.append(("elementId", elementId)) }
        if duplicateElementId { p.append(("elementId", .str("goal_selector_v2"))) }
        p.append(("meta", m ?? meta()))
        switch params {
        case .none:
            var q: [(String, J)] = []
            if let type { q.append(("type", type)) }
            q.append(("value", value ?? option()))
            p.append(("params", .obj(q)))
        case .some(.none): break
        case .some(.some(let x)): p.append(("params", x))
        }
        return .obj(p)
    }

    func analyticsAction(name: J? = .str("screen_presented"), meta m: J?? = nil, duplicateName: Bool = false) -> J {
        var p: [(String, J)] = []
        if let name { p.append(("name", name)) }
        if duplicateName { p.append(("name", .str("screen_completed"))) }
        switch m {
        case .none: p.append(("meta", meta()))
        case .some(.none): break
        case .some(.some(let x)): p.append(("meta", x))
        }
        return .obj(p)
    }

    /// One rejected line (no line end) of the given kind.
    mutating func rejectLine(_ kind: NoiseKind, _ c: NoiseContext) -> [UInt8] {
        let activate = envelope(c, type: "sdk_activate")
        func state(_ action: J?) -> [UInt8] {
            var p = envelope(c, type: "onboarding_state_updated")
            if let action { p.append(("action", action)) }
            return J.obj(p).bytes
        }
        func analytics(_ action: J?) -> [UInt8] {
            var p = envelope(c, type: "onboarding_analytics")
            if let action { p.append(("action", action)) }
            return J.obj(p).bytes
        }
        func withTimestamp(_ ts: J) -> [UInt8] { J.obj(envelope(c, type: "sdk_activate", ts: ts)).bytes }
        func quoted(_ s: String) -> J { .str(s) }
        let note = "Back from vacation"
        switch kind {
        // invalid_json
        case .truncatedLine:
            let full = J.obj(activate + [("note", .str(note))]).bytes
            return Array(full[0..<rng.between(1, full.count - 2)])
        case .invalidUTF8Byte:
            return J.obj(activate + [("note", .bytes([0x22, 0x63, 0x61, 0x66, 0xFF, 0x22]))]).bytes
        case .invalidUTF8Overlong:
            return J.obj(envelope(c, type: "sdk_activate", profile: .some(.bytes([0x22, 0x70, 0xC0, 0xAF, 0x22])))).bytes
        case .invalidUTF8Surrogate:
            return J.obj(envelope(c, type: "sdk_activate", cuid: .bytes([0x22, 0x75, 0xED, 0xA0, 0x80, 0x22]))).bytes
        case .invalidUTF8Truncated:
            return J.obj(envelope(c, type: "sdk_activate", device: .some(.bytes([0x22] + Array(c.device.utf8) + [0xE3, 0x81, 0x22])))).bytes
        case .invalidUTF8Continuation:
            return J.obj(activate + [("note", .bytes([0x22, 0x80, 0x41, 0x22]))]).bytes
        case .loneHighSurrogate:
            return J.obj(envelope(c, type: "sdk_activate", cuid: .raw("\"user\\ud83d\""))).bytes
        case .loneLowSurrogate:
            return J.obj(activate + [("note", .raw("\"\\udc00x\""))]).bytes
        case .trailingCommaObject:
            var b = J.obj(activate).bytes
            b.removeLast()
            return b + Array(",}".utf8)
        case .trailingCommaArray:
            return J.obj(activate + [("tags", .raw("[\"a\",\"b\",]"))]).bytes
        case .nanValue:
            return J.obj(activate + [("price", .raw("NaN"))]).bytes
        case .infinityValue:
            return J.obj(activate + [("score", .raw("-Infinity"))]).bytes
        case .duplicateEventId:
            return J.obj(activate + [("event_id", .str(c.freshId))]).bytes
        case .duplicateProfileId:
            return J.obj(activate + [("profile_id", .str(uuidText(rng.next(), rng.next(), upper: false)))]).bytes
        case .duplicateTimestamp:
            return J.obj(activate + [("timestamp", .str(c.timestamp))]).bytes
        case .duplicateCustomerUserId:
            return J.obj(activate + [("customer_user_id", .raw("null")), ("customer_user_id", .str("user_dup"))]).bytes
        case .duplicateElementId:
            return state(stateAction(duplicateElementId: true))
        case .duplicateMetaOnboardingId:
            return state(stateAction(meta: meta(duplicateOnboardingId: true)))
        case .duplicateOptionId:
            return state(stateAction(value: option(duplicateId: true)))
        case .duplicateAnalyticsName:
            return analytics(analyticsAction(duplicateName: true))
        case .blockComment:
            var b = J.obj(activate).bytes
            b.removeFirst()
            return Array("{/* exported by v2 */".utf8) + b
        case .lineComment:
            return J.obj(activate).bytes + Array(" // trailing comment".utf8)
        case .dataAfterValue:
            return J.obj(activate).bytes + J.obj([("event_id", .str(c.freshId + "-b"))]).bytes
        case .singleQuotes:
            return Array("{'event_id':'\(c.freshId)','event_type':'sdk_activate','timestamp':'\(c.timestamp)','device_id':'\(c.device)','profile_id':'\(c.profile)'}".utf8)
        case .unquotedKey:
            var b = J.obj(activate).bytes
            b.removeFirst()
            return Array("{event_source:\"sdk\",".utf8) + b
        case .rawControlChar:
            return J.obj(activate + [("note", .bytes([0x22, 0x61, 0x09, 0x62, 0x22]))]).bytes
        case .badEscape:
            return J.obj(activate + [("note", .raw("\"\\x41\""))]).bytes
        case .leadingZero:
            return J.obj(activate + [("retry_count", .raw("007"))]).bytes
        case .plusNumber:
            return J.obj(activate + [("retry_count", .raw("+1"))]).bytes
        case .bomMidFile:
            return [0xEF, 0xBB, 0xBF] + J.obj(activate).bytes
        // not_an_object
        case .arrayLine: return Array("[1, 2, 3]".utf8)
        case .stringLine: return Array("\"sdk_activate\"".utf8)
        case .numberLine: return Array(String(floorDiv(c.t, 1_000_000)).utf8)
        case .nullLine: return Array("null".utf8)
        case .boolLine: return Array(" true ".utf8)
        case .arrayOfObject: return [0x5B] + J.obj(activate).bytes + [0x5D]
        // missing_field
        case .noEventId: return J.obj(Array(activate.dropFirst())).bytes
        case .emptyEventId: return J.obj(envelope(c, type: "sdk_activate", id: .str(""))).bytes
        case .nullEventId: return J.obj(envelope(c, type: "sdk_activate", id: .raw("null"))).bytes
        case .noEventType: return J.obj(activate.filter { $0.0 != "event_type" }).bytes
        case .nullEventType: return J.obj(envelope(c, type: "", eventType: .raw("null"))).bytes
        case .noTimestamp: return J.obj(activate.filter { $0.0 != "timestamp" }).bytes
        case .nullTimestamp: return withTimestamp(.raw("null"))
        case .noDeviceId: return J.obj(envelope(c, type: "logout", device: .some(nil))).bytes
        case .emptyDeviceId: return J.obj(envelope(c, type: "sdk_activate", device: .some(.str("")))).bytes
        case .noProfileId: return J.obj(envelope(c, type: "sdk_activate", profile: .some(nil))).bytes
        case .nullProfileId: return J.obj(envelope(c, type: "logout", profile: .some(.raw("null")))).bytes
        case .emptyProfileId: return J.obj(envelope(c, type: "sdk_activate", profile: .some(.str("")))).bytes
        case .identifyNoCuid: return J.obj(envelope(c, type: "identify")).bytes
        case .identifyNullCuid: return J.obj(envelope(c, type: "identify", cuid: .raw("null"))).bytes
        case .identifyEmptyCuid: return J.obj(envelope(c, type: "identify", cuid: .str(""))).bytes
        case .stateNoDevice:
            return J.obj(envelope(c, type: "onboarding_state_updated", device: .some(nil)) + [("action", stateAction())]).bytes
        case .unknownNoEventId:
            return J.obj(Array(envelope(c, type: "paywall_shown").dropFirst())).bytes
        // wrong_type
        case .eventIdNumber: return J.obj(envelope(c, type: "sdk_activate", id: .raw("1234567"))).bytes
        case .eventTypeNumber: return J.obj(envelope(c, type: "", eventType: .raw("7"))).bytes
        case .deviceIdNumber: return J.obj(envelope(c, type: "sdk_activate", device: .some(.raw("12345")))).bytes
        case .profileIdObject:
            return J.obj(envelope(c, type: "sdk_activate", profile: .some(.obj([("id", .str(c.profile))])))).bytes
        case .cuidNumber: return J.obj(envelope(c, type: "sdk_activate", cuid: .raw("7"))).bytes
        case .cuidBoolIdentify: return J.obj(envelope(c, type: "identify", cuid: .raw("true"))).bytes
        case .timestampBool: return withTimestamp(.raw("true"))
        case .timestampArray: return withTimestamp(.arr([.str(c.timestamp)]))
        // bad_timestamp
        case .tsSpace: return withTimestamp(quoted(c.timestamp.replacingFirst("T", with: " ")))
        case .tsMissingSeconds: return withTimestamp(quoted(String(c.timestamp.prefix(16)) + "Z"))
        case .tsCompactOffset: return withTimestamp(quoted(String(c.timestamp.prefix(19)) + "+0900"))
        case .tsNoOffset: return withTimestamp(quoted(String(c.timestamp.dropLast())))
        case .tsLeapSecond: return withTimestamp(quoted("2026-12-31T23:59:60Z"))
        case .tsFeb30: return withTimestamp(quoted("2026-02-30T10:00:00Z"))
        case .tsMonth13: return withTimestamp(quoted("2026-13-01T10:00:00.000Z"))
        case .tsHour24: return withTimestamp(quoted(String(c.timestamp.prefix(11)) + "24:00:00Z"))
        case .tsTenDigits: return withTimestamp(quoted(String(c.timestamp.prefix(19)) + ".1234567891Z"))
        case .tsEmptyFraction: return withTimestamp(quoted(String(c.timestamp.prefix(19)) + ".Z"))
        case .tsExponent: return withTimestamp(.raw("1.7958573e12"))
        case .tsDecimal: return withTimestamp(.raw(String(floorDiv(c.t, 1_000_000)) + ".0"))
        case .tsNumericString: return withTimestamp(quoted(String(floorDiv(c.t, 1_000_000))))
        case .tsYearZero: return withTimestamp(quoted("0000-06-01T00:00:00Z"))
        case .tsEpochTooLarge: return withTimestamp(.raw("253402300800000"))
        case .tsEpochTooSmall: return withTimestamp(.raw("-62135596800001"))
        case .tsOffsetUnderflow: return withTimestamp(quoted("0001-01-01T00:00:00+00:01"))
        case .tsOffsetOverflow: return withTimestamp(quoted("9999-12-31T23:59:59-00:01"))
        case .tsOffsetMinutes60: return withTimestamp(quoted(String(c.timestamp.prefix(19)) + "+09:60"))
        case .tsTwoDigitYear: return withTimestamp(quoted(String(c.timestamp.dropFirst(2))))
        // bad_action
        case .actionMissing: return state(nil)
        case .actionNull: return analytics(.raw("null"))
        case .actionString: return state(.str("goal_selector=stay_fit"))
        case .actionArray: return analytics(.arr([analyticsAction()]))
        case .elementIdNumber: return state(stateAction(elementId: .raw("17")))
        case .elementIdMissing: return state(stateAction(elementId: nil))
        case .metaMissing:
            return state(.obj([("elementId", .str("goal_selector")),
                               ("params", .obj([("type", .str("select")), ("value", option())]))]))
        case .metaNotObject: return state(stateAction(meta: .str("onboarding_main_v3")))
        case .onboardingIdMissing: return state(stateAction(meta: meta(onboardingId: nil)))
        case .onboardingIdNumber: return analytics(analyticsAction(meta: .some(meta(onboardingId: .raw("123")))))
        case .paramsMissing: return state(stateAction(params: .some(nil)))
        case .paramsTypeMissing: return state(stateAction(type: nil))
        case .paramsTypeNumber: return state(stateAction(type: .raw("1")))
        case .selectValueString: return state(stateAction(value: .str("stay_fit")))
        case .selectValueNoId: return state(stateAction(value: option(id: nil)))
        case .selectIdNumber: return state(stateAction(value: option(id: .raw("3"))))
        case .multiValueObject:
            return state(stateAction(elementId: .str("interests_selector"), type: .str("multiSelect"),
                                     value: option(id: .str("interest_1"), value: .str("sports"), label: .str("Sports"))))
        case .multiElementString:
            return state(stateAction(elementId: .str("interests_selector"), type: .str("multiSelect"),
                                     value: .arr([.str("interest_1")])))
        case .multiElementNoId:
            return state(stateAction(elementId: .str("interests_selector"), type: .str("multiSelect"),
                                     value: .arr([option(id: .str("interest_2"), value: .str("music"), label: .str("Music")),
                                                  option(id: nil, value: .str("sports"), label: .str("Sports"))])))
        case .inputValueString:
            return state(stateAction(elementId: .str("name_input"), type: .str("input"), value: .str("John Doe")))
        case .datePickerValueArray:
            return state(stateAction(elementId: .str("birthday_picker"), type: .str("datePicker"),
                                     value: .arr([.raw("15"), .raw("6"), .raw("1990")])))
        case .datePickerDayString:
            return state(stateAction(elementId: .str("birthday_picker"), type: .str("datePicker"),
                                     value: .obj([("day", .str("15")), ("month", .raw("6")), ("year", .raw("1990"))])))
        case .datePickerMonthDecimal:
            return state(stateAction(elementId: .str("birthday_picker"), type: .str("datePicker"),
                                     value: .obj([("day", .raw("15")), ("month", .raw("6.0")), ("year", .raw("1990"))])))
        case .screenIndexString: return state(stateAction(meta: meta(index: .str("1"))))
        case .screensTotalDecimal: return analytics(analyticsAction(meta: .some(meta(total: .raw("3.5")))))
        case .screenClientIdNumber: return analytics(analyticsAction(meta: .some(meta(clientId: .raw("2")))))
        case .optionLabelNumber: return state(stateAction(value: option(label: .raw("5"))))
        case .optionValueBool:
            return state(stateAction(elementId: .str("interests_selector"), type: .str("multiSelect"),
                                     value: .arr([option(id: .str("interest_1"), value: .raw("true"), label: .str("Sports"))])))
        case .analyticsNameMissing: return analytics(analyticsAction(name: nil))
        case .analyticsNameNumber: return analytics(analyticsAction(name: .raw("4")))
        case .analyticsMetaMissing: return analytics(analyticsAction(meta: .some(nil)))
        default:
            return J.obj(activate + [("note", .raw("NaN"))]).bytes
        }
    }

    // MARK: huge lines

    /// Two lines around the default 1 MiB limit: exactly 1,048,576 bytes (accepted) and
    /// 1,048,577 bytes (`line_too_long`). Made from the context of a real event.
    mutating func emitHugeLines(context: (Ev, Int)?) {
        hugeDone = true
        let limit = 1_048_576
        let t: Int64
        var pairs: [(String, J)]
        let id1 = uuidText(rng.next(), rng.next(), upper: false)
        let id2 = uuidText(rng.next(), rng.next(), upper: false)
        if let (ev, slot) = context {
            let c = self.context(ev, slot: slot)
            t = ev.t
            pairs = [("event_type", .str("debug_snapshot")), ("timestamp", .str(c.timestamp)),
                     ("device_id", .str(c.device)), ("profile_id", .str(c.profile))]
        } else {
            t = windowStart
            pairs = [("event_type", .str("debug_snapshot")), ("timestamp", .str(rfc3339Text(windowStart)))]
        }
        for (id, size, account) in [(id1, limit, LineAccount.event(.unknown, t)), (id2, limit + 1, LineAccount.reject(0))] {
            var b = J.obj([("event_id", .str(id))] + pairs + [("blob", .str(""))]).bytes
            let pad = size - b.count
            // insert `pad` bytes of filler inside the empty blob string (before `"}`)
            b.removeLast(2)
            b += [UInt8](repeating: 0x61, count: max(pad, 0))
            b += [0x22, 0x7D]
            writeLine(b, account)
        }
    }
}

extension String {
    func replacingFirst(_ a: Character, with b: Character) -> String {
        guard let i = firstIndex(of: a) else { return self }
        var s = self
        s.replaceSubrange(i...i, with: String(b))
        return s
    }
}
