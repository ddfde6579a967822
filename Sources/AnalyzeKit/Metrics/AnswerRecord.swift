/// A quiz answer (select / multiSelect) of one event: its question and options.
///
/// Memory: 12 bytes. The question is an id in the partial's
/// ``QuestionTable``; an option handle fits 32 bits below 2³² options (about
/// 16 GB of them; ``RunCapacity/answerOptions``); an answer's option count is
/// bounded by its line (below 2 GiB, ``RunCapacity/lineBytes``, so below
/// 2.2 × 10⁸ options of 10 bytes or more) and shares a word with the kind.
struct AnswerRecord {
    private var start: UInt32
    /// The question's id in `PartialAggregate.quizQuestions`.
    var question: UInt32
    /// The option count times four plus the kind.
    private var countAndKind: UInt32

    init(optionsStart: Int, question: UInt32, optionsCount: Int32, kind: AnswerKind) {
        (start, self.question, countAndKind) = (0, question, 0)
        self.optionsStart = optionsStart
        precondition(optionsCount >= 0 && optionsCount < 1 << 30, "too many options in one answer")
        countAndKind = UInt32(optionsCount) << 2 | UInt32(kind.rawValue)
    }

    /// The handle of the first option in `PartialAggregate.answerOptions`.
    var optionsStart: Int {
        @inline(__always) get { Int(start) }
        set {
            precondition(newValue >= 0 && newValue <= Int(UInt32.max), "too many quiz options")
            start = UInt32(newValue)
        }
    }

    var optionsCount: Int32 { Int32(countAndKind >> 2) }

    var kind: AnswerKind { AnswerKind(rawValue: UInt8(countAndKind & 3)).unsafelyUnwrapped }
}

/// One option of an answer, as ids in `PartialAggregate.quizStrings`.
struct AnswerOption: Equatable {
    var id: UInt32
    var value: UInt32
    var label: UInt32
}

/// An answer recorded for the `action` in one way of the parser's cache, and
/// which filling of that way it was (0: none).
struct AnswerMemo {
    var fill: UInt64 = 0
    var record = AnswerRecord(optionsStart: 0, question: 0, optionsCount: 0, kind: .none)
}
