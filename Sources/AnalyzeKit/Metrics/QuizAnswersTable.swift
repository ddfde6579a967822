/// One row of `quiz_answers.csv`.
struct QuizAnswerRow: Equatable, Sendable {
    var onboardingID: [UInt8]
    var elementID: [UInt8]
    var questionType: String
    var optionID: [UInt8]
    var optionValue: [UInt8]
    var optionLabel: [UInt8]
    var respondents: Int
    var questionRespondents: Int
    var selections: Int

    /// `respondents ÷ questionRespondents` with exactly 4 decimals, rounded half
    /// away from zero, in integer arithmetic (1/32 → `0.0313`).
    var share: String {
        guard questionRespondents > 0 else { return "0.0000" }
        let scaled = (respondents * 20_000 + questionRespondents) / (2 * questionRespondents)
        let fraction = String(scaled % 10_000)
        return "\(scaled / 10_000)." + String(repeating: "0", count: 4 - fraction.count) + fraction
    }
}

/// Quiz answer distributions (SPEC §4.3), over select / multiSelect events.
///
/// A question is (onboarding id, element id); a respondent is a profile. Per
/// (question, respondent) only the latest answer (by ordering key) is final;
/// per (question, option) the selections count every event choosing it and
/// the latest such event supplies value and label.
enum QuizAnswersTable {
    private struct Question: Hashable { var onboarding: UInt32; var element: UInt32 }
    private struct Respondent: Hashable { var question: Question; var profile: UInt32 }
    private struct OptionKey: Hashable { var question: Question; var option: UInt32 }
    private struct OptionStats {
        var selections = 0
        var respondents = 0
        /// The latest record that selected the option, and its entry there.
        var latest: EventRecord
        var latestOption: AnswerOption
    }

    static func rows(from partial: PartialAggregate) -> [QuizAnswerRow] {
        var finalAnswer: [Respondent: EventRecord] = [:]
        var questionLatest: [Question: EventRecord] = [:]
        var options: [OptionKey: OptionStats] = [:]
        func isLater(_ a: EventRecord, than b: EventRecord) -> Bool { partial.orderedBefore(b, a) }

        for record in partial.store.records {
            guard let answer = partial.answer(of: record) else { continue }
            let question = Question(onboarding: answer.onboarding, element: answer.element)
            let respondent = Respondent(question: question, profile: record.profile)
            if let current = finalAnswer[respondent], !isLater(record, than: current) {} else {
                finalAnswer[respondent] = record
            }
            if let current = questionLatest[question], !isLater(record, than: current) {} else {
                questionLatest[question] = record
            }
            for option in partial.answerOptions[answer.optionsStart..<(answer.optionsStart + answer.optionsCount)] {
                let key = OptionKey(question: question, option: option.id)
                if var stats = options[key] {
                    stats.selections += 1
                    if isLater(record, than: stats.latest) {
                        stats.latest = record
                        stats.latestOption = option
                    }
                    options[key] = stats
                } else {
                    options[key] = OptionStats(selections: 1, latest: record, latestOption: option)
                }
            }
        }

        var questionRespondents: [Question: Int] = [:]
        for (respondent, record) in finalAnswer {
            questionRespondents[respondent.question, default: 0] += 1
            let answer = partial.answer(of: record)!
            for option in partial.answerOptions[answer.optionsStart..<(answer.optionsStart + answer.optionsCount)] {
                options[OptionKey(question: respondent.question, option: option.id)]!.respondents += 1
            }
        }

        let strings = partial.quizStrings
        var rows = options.map { key, stats in
            QuizAnswerRow(
                onboardingID: strings.bytes(key.question.onboarding),
                elementID: strings.bytes(key.question.element),
                questionType: partial.answer(of: questionLatest[key.question]!)!.kind.name,
                optionID: strings.bytes(key.option),
                optionValue: strings.bytes(stats.latestOption.value),
                optionLabel: strings.bytes(stats.latestOption.label),
                respondents: stats.respondents,
                questionRespondents: questionRespondents[key.question] ?? 0,
                selections: stats.selections)
        }
        rows.sort { a, b in
            if a.onboardingID != b.onboardingID { return a.onboardingID.lexicographicallyPrecedes(b.onboardingID) }
            if a.elementID != b.elementID { return a.elementID.lexicographicallyPrecedes(b.elementID) }
            if a.respondents != b.respondents { return a.respondents > b.respondents }
            return a.optionID.lexicographicallyPrecedes(b.optionID)
        }
        return rows
    }
}
