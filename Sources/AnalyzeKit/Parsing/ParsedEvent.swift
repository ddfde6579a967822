/// Where a string's bytes live after parsing: in the line itself (no escapes)
/// or in the parser's decode arena (escapes resolved).
struct StringRef: Equatable {
    var start: Int
    var count: Int
    var isDecoded: Bool

    static let empty = StringRef(start: 0, count: 0, isDecoded: true)
}

/// What a select / multiSelect answer carries per option.
struct OptionRefs {
    var id: StringRef
    var value: StringRef
    var label: StringRef
}

/// The kind of answer an `onboarding_state_updated` event gives to the quiz metric.
enum AnswerKind: UInt8 {
    case none, select, multiSelect

    /// The `question_type` column's text (a `StaticString`: written from its
    /// bytes, with no string per row).
    var name: StaticString {
        switch self {
        case .none: ""
        case .select: "select"
        case .multiSelect: "multiSelect"
        }
    }
}

/// One accepted line, as the metrics read it. Strings are ``StringRef``s into
/// the line or the parser's arena, valid until the next line is parsed.
struct ParsedEvent {
    var type: EventType = .unknown
    var instant = Instant(seconds: 0, nanoseconds: 0)
    var eventID = StringRef.empty
    /// nil when absent, or (on unknown types) not a non-empty string.
    var deviceID: StringRef?
    var profileID: StringRef?
    /// nil when anonymous (`null`, absent or `""`).
    var customerUserID: StringRef?
    /// Onboarding fields (nil when the type does not carry them).
    var onboardingID: StringRef?
    var elementID: StringRef?
    var analyticsName: StringRef?
    var paramsType: StringRef?
    var answerKind = AnswerKind.none
    /// A hash of what a duplicate is compared on beyond the fields above
    /// (SPEC §2 Duplicates): the action fields of onboarding events, the
    /// `event_type` spelling of unknown ones.
    var contentFingerprint: UInt64 = 0
}
