/// How much one run can hold: the ranges of the packed fields that number
/// identities and hold handles of side-table entries (``EventRecord``,
/// ``EventExtra``, ``BareID``, ``AnswerRecord``).
///
/// A run that needs more stops with exit 2 and a message that names the limit
/// (``CapacityLimit``), before writing anything, instead of trapping on a
/// field's range check. The partials check as they record
/// (``PartialAggregate/exceededLimit``): a worker stops at the end of the chunk
/// where its partial first needs more, the others at the end of theirs, and
/// merging checks the merged sizes before it renumbers anything.
///
/// Identities, bare ids and quiz strings are numbered densely, so their limits
/// are counts. Extras, answers and answer options are held by
/// ``SegmentedArray`` handles, which skip what a segment left unfilled (at
/// each merge, and for answer options wherever an answer's options do not fit
/// the rest of a segment), so those limits bound the handles
/// (``SegmentedArray/handleEnd``): a run passes them a little before its count
/// does, by at most a segment per partial for extras and answers. Near such
/// a limit, then, whether a run fails can depend on how its input was split
/// among the workers; the outputs of a run that succeeds never do.
///
/// Reaching a limit takes several GB of memory first (about 7.5 GB of records
/// for the lowest, at 56 bytes an identity event). Tests lower the limits
/// (``AnalyzeOptions/capacity``) to reach them with a few lines.
struct RunCapacity: Sendable, Equatable {
    /// Distinct identities (device, profile and customer user ids together):
    /// an id plus one is below ``EventRecord/identityLimit``.
    var identities: Int
    /// The end of the extras' handles (quiz answers, and identity events
    /// whose `event_id` is not kept bare): a handle is below
    /// ``EventRecord/extraLimit``.
    var extras: Int
    /// The end of the answers' handles: ``EventExtra/answer`` holds one below
    /// 2³⁰ − 1.
    var answers: Int
    /// Identity events whose `event_id` is kept bare (a UUID in one letter
    /// case, or at most 16 bytes; duplicates included until settling): the
    /// index shares the extra's field with the id's kind.
    var bareIDs: Int
    /// The end of the answer options' handles, and their count: an answer's
    /// first option is a 32-bit handle, and the distinct options' table
    /// numbers them in 32 bits, up to 2³² − 2 of them.
    var answerOptions: Int
    /// Distinct quiz strings (onboarding and element ids, options' ids,
    /// values and labels): their ids are 32 bits.
    var quizStrings: Int
    /// The longest line within `--max-line-bytes` a run can hold: below
    /// 2 GiB, every field of one line fits its field (an `event_id`'s length
    /// in 31 bits, a quiz string's in 32, an answer's options in 30, an
    /// action's structure in 31-bit links). Longer lines come only with a
    /// `--max-line-bytes` above it (the default is 1 MiB).
    var lineBytes: Int

    /// The limits of the record layout.
    static let standard = RunCapacity(
        identities: Int(EventRecord.identityLimit) - 1,
        extras: Int(EventRecord.extraLimit),
        answers: (1 << 30) - 1,
        bareIDs: Int(EventRecord.extraLimit) / 4,
        answerOptions: Int(UInt32.max) - 1,
        quizStrings: Int(UInt32.max),
        lineBytes: Int(Int32.max))

    /// The first of the limits that these sizes pass, if any (the extras',
    /// answers' and answer options' handle ends, the others counts; the
    /// options' count too).
    func exceeded(extras: Int, answers: Int, bareIDs: Int, answerOptions: Int, answerOptionCount: Int) -> CapacityLimit? {
        if extras > self.extras { return .extras(self.extras) }
        if answers > self.answers { return .answers(self.answers) }
        if bareIDs > self.bareIDs { return .bareIDs(self.bareIDs) }
        if max(answerOptions, answerOptionCount) > self.answerOptions { return .answerOptions(self.answerOptions) }
        return nil
    }
}

/// A limit of ``RunCapacity`` that a run's inputs passed, with its value.
enum CapacityLimit: Equatable, Sendable {
    case identities(Int)
    case extras(Int)
    case answers(Int)
    case bareIDs(Int)
    case answerOptions(Int)
    case quizStrings(Int)
    case lineBytes(Int)

    /// What the inputs hold too much of, for the run's message (SPEC §6:
    /// exit 2, nothing written). A limit on handles is passed a little before
    /// the count it names (``RunCapacity``), so its value reads "about".
    var message: String {
        let (limit, what, exact): (Int, String, Bool)
        switch self {
        case .identities(let value): (limit, what, exact) = (value, "distinct device, profile and customer user ids", true)
        case .extras(let value):
            (limit, what, exact) = (
                value, "quiz answers and identity events whose event_id is neither a one-case UUID nor at most 16 bytes", false)
        case .answers(let value): (limit, what, exact) = (value, "quiz answers", false)
        case .bareIDs(let value):
            (limit, what, exact) = (value, "identity events whose event_id is a one-case UUID or at most 16 bytes", true)
        case .answerOptions(let value): (limit, what, exact) = (value, "quiz answer options", false)
        case .quizStrings(let value):
            (limit, what, exact) = (value, "distinct quiz strings (onboarding, element and option ids, values and labels)", true)
        case .lineBytes(let value):
            return "a line is longer than \(value) bytes, the longest one run can hold; nothing written "
                + "(with --max-line-bytes \(value) or less, such lines are rejected as line_too_long)"
        }
        return exact
            ? "the inputs hold more than \(limit) \(what), the most one run can hold; nothing written"
            : "the inputs hold more \(what) than one run can hold (about \(limit)); nothing written"
    }
}
