/// One row of `quiz_answers.csv`, its text as quiz-string ids
/// (``QuizAnswers/strings``): 36 bytes, with no array of its own, so a quiz
/// of millions of distinct options holds 36 bytes per row until it is
/// written (until the sixty-fifth session each row held its texts as
/// arrays: about 130 bytes).
///
/// The counts fit 32 bits: each is at most the answers kept, below 2³⁰
/// (``RunCapacity/answers``). An answer selects an option once (an id
/// repeated inside one answer is dropped when it is recorded, and merging
/// maps distinct strings to distinct strings).
struct QuizAnswerRow: Equatable, Sendable {
    var onboardingID: UInt32
    var elementID: UInt32
    var optionID: UInt32
    var optionValue: UInt32
    var optionLabel: UInt32
    var respondents: UInt32
    var questionRespondents: UInt32
    var selections: UInt32
    var questionType: AnswerKind

    /// The share column, `respondents ÷ questionRespondents` rounded half away
    /// from zero to 4 decimals, in ten-thousandths, in integer arithmetic
    /// (1/32 → 313, written `0.0313` by `CSVWriter.field(_:decimals:)`).
    var shareInTenThousandths: Int {
        guard questionRespondents > 0 else { return 0 }
        let (respondents, questionRespondents) = (Int(respondents), Int(questionRespondents))
        return (respondents * 20_000 + questionRespondents) / (2 * questionRespondents)
    }
}

/// The rows of `quiz_answers.csv` in the SPEC's order, and the quiz strings
/// their ids name (the merged partial's interner, shared, not copied: the
/// partial is freed once the tables are computed, the strings stay).
struct QuizAnswers: Sendable {
    var rows: [QuizAnswerRow] = []
    var strings = Interner(capacity: 0)
}

/// Quiz answer distributions (SPEC §4.3), over select / multiSelect events.
///
/// A question is (onboarding id, element id); a respondent is a profile. Per
/// (question, respondent) only the latest answer (by ordering key) is final;
/// per (question, option) the selections count every event choosing it and
/// the latest such event supplies value and label.
///
/// Performance: the answers are grouped by (question, profile) with a radix
/// sort, then each respondent's few answers are sorted by ordering key, so
/// each respondent's answers are adjacent (the last is final) and each
/// question's answers form one run, in which options are tallied in a dense
/// table indexed by quiz-string id (no hashing per option). The rows are
/// sorted by their ids: questions compared by bytes only when their ids
/// differ, options of one question by respondents, then by bytes. Memory:
/// 48 bytes per answer event (the radix sort works in place); 20 bytes per
/// distinct quiz string for the tally (``OptionStats``); while a question
/// is tallied, 20 bytes per answer of it (its answers placed by second, and
/// their ranks); 36 bytes per row.
enum QuizAnswersTable {
    /// What the table needs of one answer event (48 bytes), gathered in one
    /// pass so that later steps never look the answer up again.
    private struct Answer {
        /// onboarding id << 32 | element id (quiz-string ids).
        var question: UInt64
        var seconds: Int64
        /// The answer's options in `PartialAggregate.answerOptions`.
        var optionsStart: Int
        /// The question's id in `PartialAggregate.quizQuestions`.
        var number: UInt32
        var profile: UInt32
        var nanoseconds: UInt32
        /// The record's extra (ordering ties).
        var extra: Int32
        var optionsCount: Int32
        var kind: AnswerKind

        /// The answer's place in the SPEC's ordering key (an answer always has an extra).
        var orderingKey: OrderingKey {
            OrderingKey(seconds: seconds, nanoseconds: nanoseconds, extra: extra, hasBareID: false)
        }
    }

    /// An option's tally inside one question.
    /// (20 bytes: the option's id is its index.)
    private struct OptionStats {
        var selections: UInt32 = 0
        var respondents: UInt32 = 0
        /// The rank in its question (``rankByOrderingKey(_:in:placing:into:)``) of the
        /// latest answer that selected the option (-1: none yet), and that
        /// answer's value and label for the option.
        var latestRank: Int32 = -1
        var latestValue: UInt32 = 0
        var latestLabel: UInt32 = 0
    }

    /// An answer of one question, placed by its second for the ranking.
    private struct Placed {
        /// Seconds since the question's earliest answer (below 2³⁹: instants
        /// are in years 0001–9999).
        var second: UInt64
        /// The answer's index in the question's run.
        var index: Int32
    }

    static func rows(from partial: PartialAggregate) -> QuizAnswers {
        // No answer recorded, no row: the scan of every record below would
        // find none (5–7 ms on the export without onboarding events, on the
        // core the installs table then waits for).
        guard partial.answers.count > 0 else { return QuizAnswers() }
        var answers = gatherAnswers(from: partial)
        groupByRespondent(&answers, in: partial)
        var rows = tally(answers, in: partial)
        answers = []
        let strings = partial.quizStrings
        // Ids compared with `memcmp`: a byte per step (`!=`, then
        // `lexicographicallyPrecedes`) made 50 000 questions with 1 000-byte
        // ids that differ at their ends take 2.7–3 s instead of 0.3–0.4.
        // Equal ids are equal bytes (the interner numbers distinct strings),
        // so the rows of one question compare no question bytes.
        func compare(_ a: UInt32, _ b: UInt32) -> Int {
            a == b ? 0 : strings.withBytes(a) { a in strings.withBytes(b) { b in RawBytes.compare(a, b) } }
        }
        rows.sort { a, b in
            let onboarding = compare(a.onboardingID, b.onboardingID)
            if onboarding != 0 { return onboarding < 0 }
            let element = compare(a.elementID, b.elementID)
            if element != 0 { return element < 0 }
            if a.respondents != b.respondents { return a.respondents > b.respondents }
            return compare(a.optionID, b.optionID) < 0
        }
        return QuizAnswers(rows: rows, strings: strings)
    }

    /// Every kept answer event, in store order.
    private static func gatherAnswers(from partial: PartialAggregate) -> [Answer] {
        var answers: [Answer] = []
        // Room for every answer up front (an upper bound: dropped duplicates
        // included): no regrowth, which would briefly hold two copies.
        answers.reserveCapacity(partial.answers.count)
        // An answer is two dependent random reads (the record's extra, then
        // its answer): a record's extra is asked for 64 records ahead and its
        // answer 32 ahead, so both have arrived when the record is read. (About
        // one record in five is an answer: 16 and 8 records ahead were only
        // about three and two answers ahead, too close to hide the misses.)
        @inline(__always) func hasAnswer(_ record: EventRecord) -> Bool {
            // Only this type has answers: identity events' extras are not looked up.
            record.type == .onboardingStateUpdated && record.extra >= 0 && !record.isRemoved
        }
        // Questions are numbered by their ids in the partial's question
        // table (the rows are sorted at the end, so the order of groups is free).
        let questions = partial.quizQuestions
        partial.store.forEachSegment { segment in
            for index in segment.indices {
                if index + 64 < segment.count, hasAnswer(segment[index + 64]) {
                    partial.extras.prefetch(Int(segment[index + 64].extra))
                }
                if index + 32 < segment.count, hasAnswer(segment[index + 32]) {
                    let answer = partial.extras[Int(segment[index + 32].extra)].answer
                    if answer >= 0 { partial.answers.prefetch(Int(answer)) }
                }
                let record = segment[index]
                guard hasAnswer(record), let answer = partial.answer(of: record) else { continue }
                let number = answer.question
                let pair = questions[number]
                let question = UInt64(pair.onboarding) << 32 | UInt64(pair.element)
                answers.append(Answer(
                    question: question, seconds: record.seconds, optionsStart: answer.optionsStart, number: number,
                    profile: record.profile, nanoseconds: record.nanoseconds, extra: record.extra,
                    optionsCount: answer.optionsCount, kind: answer.kind))
            }
        }
        return answers
    }

    /// Groups `answers` by (question, profile): a radix sort on question
    /// number × profiles + profile (below 2⁶⁴: both factors are at most 2³²);
    /// then each respondent's few answers to a question by ordering key, so
    /// a respondent's last answer is its final one.
    private static func groupByRespondent(_ answers: inout [Answer], in partial: PartialAggregate) {
        let profiles = UInt64(partial.identities.count + 1)
        RadixSort.group(&answers) { UInt64($0.number) * profiles + UInt64($0.profile) }
        RadixSort.sortRuns(&answers, sameGroup: { $0.question == $1.question && $0.profile == $1.profile }) {
            partial.orderedBefore($0.orderingKey, $1.orderingKey)
        }
    }

    /// Writes to `ranks` each answer's rank in `run` (one question's answers)
    /// by the SPEC's ordering key, 0 for the earliest, and returns the index
    /// in `run` of the latest. Ranks order answers as
    /// ``PartialAggregate/orderedBefore(_:_:)`` does, as integers.
    ///
    /// Performance: the answers are grouped by second with a radix sort, and
    /// only answers of one second are compared by ordering key (their
    /// `event_id`s only at equal instants). The tally then compares ranks:
    /// comparing an option's latest answer with each answer that selects it
    /// compared the two `event_id`s once per option, so answers of one
    /// instant with long ids and many options cost their id length times
    /// their options (until the sixty-third session: two 1 MB lines, 17.6 s).
    /// `placed` and `ranks` are the caller's, reused from question to
    /// question, and a question of one answer is ranked without sorting:
    /// no allocation per question.
    private static func rankByOrderingKey(
        _ run: UnsafeBufferPointer<Answer>, in partial: PartialAggregate,
        placing placed: inout [Placed], into ranks: inout [Int32]
    ) -> Int {
        ranks.removeAll(keepingCapacity: true)
        if run.count == 1 {
            ranks.append(0)
            return 0
        }
        let earliest = run.reduce(Int64.max) { min($0, $1.seconds) }
        placed.removeAll(keepingCapacity: true)
        for index in run.indices {
            placed.append(Placed(second: UInt64(run[index].seconds - earliest), index: Int32(index)))
        }
        RadixSort.group(&placed) { $0.second }
        RadixSort.sortRuns(&placed, sameGroup: { $0.second == $1.second }) {
            partial.orderedBefore(run[Int($0.index)].orderingKey, run[Int($1.index)].orderingKey)
        }
        ranks.append(contentsOf: repeatElement(0, count: run.count))
        for (rank, answer) in placed.enumerated() { ranks[Int(answer.index)] = Int32(rank) }
        return Int(placed[placed.count - 1].index)
    }

    /// The rows of every question, from `answers` grouped by
    /// ``groupByRespondent(_:in:)`` (unsorted: questions in group order,
    /// options in the order first selected).
    private static func tally(_ answers: [Answer], in partial: PartialAggregate) -> [QuizAnswerRow] {
        let quizOptions = partial.quizOptions
        var stats = [OptionStats](repeating: OptionStats(), count: partial.quizStrings.count)
        var touched: [UInt32] = []
        var rows: [QuizAnswerRow] = []
        var ranks: [Int32] = []
        var placed: [Placed] = []
        var runStart = 0
        while runStart < answers.count {
            // One question: answers[runStart..<runEnd].
            let question = answers[runStart].question
            var runEnd = runStart
            while runEnd < answers.count && answers[runEnd].question == question { runEnd += 1 }
            // The question's type comes from its latest answer.
            let latest = runStart + answers.withUnsafeBufferPointer { all in
                rankByOrderingKey(
                    UnsafeBufferPointer(rebasing: all[runStart..<runEnd]), in: partial, placing: &placed, into: &ranks)
            }
            var respondents: UInt32 = 0
            for index in runStart..<runEnd {
                // Answers are in question and profile order, their options in
                // input order: ask for the options of an answer a few places ahead.
                if index + 8 < answers.count { partial.answerOptions.prefetch(answers[index + 8].optionsStart) }
                let answer = answers[index]
                let rank = ranks[index - runStart]
                // The last answer of each respondent is final.
                let isFinal = index + 1 == runEnd || answers[index + 1].profile != answer.profile
                if isFinal { respondents += 1 }
                partial.answerOptions.withContiguous(from: answer.optionsStart, count: Int(answer.optionsCount)) { options in
                    for ref in options {
                        let option = quizOptions[ref]
                        let id = Int(option.id)
                        if stats[id].selections == 0 { touched.append(option.id) }
                        stats[id].selections += 1
                        if rank > stats[id].latestRank {
                            stats[id].latestRank = rank
                            stats[id].latestValue = option.value
                            stats[id].latestLabel = option.label
                        }
                        if isFinal { stats[id].respondents += 1 }
                    }
                }
            }
            let questionType = answers[latest].kind
            for id in touched {
                let option = stats[Int(id)]
                rows.append(QuizAnswerRow(
                    onboardingID: UInt32(truncatingIfNeeded: question >> 32),
                    elementID: UInt32(truncatingIfNeeded: question),
                    optionID: id,
                    optionValue: option.latestValue,
                    optionLabel: option.latestLabel,
                    respondents: option.respondents,
                    questionRespondents: respondents,
                    selections: option.selections,
                    questionType: questionType))
                stats[Int(id)] = OptionStats()
            }
            touched.removeAll(keepingCapacity: true)
            runStart = runEnd
        }
        return rows
    }
}
