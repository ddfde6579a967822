/// How much one run can hold: the ranges of the packed fields that number
/// identities, side-table entries and answer options (``EventRecord``,
/// ``BareID``, ``AnswerRecord``).
///
/// A run that needs more stops with exit 2 and a message that names the limit
/// (``CapacityLimit``), before writing anything, instead of trapping on a
/// field's range check. The partials check as they record
/// (``PartialAggregate/exceededLimit``): a worker stops at the end of the chunk
/// where its partial first needs more, the others at the end of theirs, and
/// merging checks the totals before it renumbers anything.
///
/// Reaching a limit takes several GB of memory first (about 7.5 GB of records
/// for the lowest, at 56 bytes an identity event). Tests lower the limits
/// (``AnalyzeOptions/capacity``) to reach them with a few lines.
struct RunCapacity: Sendable, Equatable {
    /// Distinct identities (device, profile and customer user ids together):
    /// an id plus one is below ``EventRecord/identityLimit``.
    var identities: Int
    /// Identity events whose `event_id` is not kept bare, and quiz answers:
    /// their extras' handles are below ``EventRecord/extraLimit``.
    var extras: Int
    /// Identity events whose `event_id` is kept bare (a UUID in one letter
    /// case, or at most 16 bytes; duplicates included until settling): the
    /// index shares the extra's field with the id's kind.
    var bareIDs: Int
    /// Options of quiz answers, as stored (an answer found again in the
    /// parser's cache shares its options): an answer's first option is a
    /// 32-bit handle, and the distinct options' table numbers them in 32 bits.
    var answerOptions: Int
    /// Distinct quiz strings (onboarding and element ids, options' ids,
    /// values and labels): their ids are 32 bits.
    var quizStrings: Int

    /// The limits of the record layout.
    static let standard = RunCapacity(
        identities: Int(EventRecord.identityLimit) - 1,
        extras: Int(EventRecord.extraLimit),
        bareIDs: Int(EventRecord.extraLimit) / 4,
        answerOptions: Int(UInt32.max) - 2,
        quizStrings: Int(UInt32.max))

    /// The first of the limits that the counts pass, if any.
    func exceeded(identities: Int, extras: Int, bareIDs: Int, answerOptions: Int) -> CapacityLimit? {
        if identities > self.identities { return .identities(self.identities) }
        if extras > self.extras { return .extras(self.extras) }
        if bareIDs > self.bareIDs { return .bareIDs(self.bareIDs) }
        if answerOptions > self.answerOptions { return .answerOptions(self.answerOptions) }
        return nil
    }
}

/// A limit of ``RunCapacity`` that a run's inputs passed, with its value.
enum CapacityLimit: Equatable, Sendable {
    case identities(Int)
    case extras(Int)
    case bareIDs(Int)
    case answerOptions(Int)
    case quizStrings(Int)

    /// What the inputs hold too much of, for the run's message (SPEC §6:
    /// exit 2, nothing written).
    var message: String {
        let (limit, what): (Int, String) = switch self {
        case .identities(let limit): (limit, "distinct device, profile and customer user ids")
        case .extras(let limit):
            (limit, "quiz answers and identity events whose event_id is neither a one-case UUID nor at most 16 bytes")
        case .bareIDs(let limit): (limit, "identity events whose event_id is a one-case UUID or at most 16 bytes")
        case .answerOptions(let limit): (limit, "quiz answer options")
        case .quizStrings(let limit): (limit, "distinct quiz strings (onboarding, element and option ids, values and labels)")
        }
        return "the inputs hold more than \(limit) \(what), the most one run can hold; nothing written"
    }
}
