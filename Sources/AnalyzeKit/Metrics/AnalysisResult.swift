/// Everything a run computed, ready to be written as the SPEC's CSV files.
public struct AnalysisResult: Sendable {
    public var quality: QualityReport
    public var rejects: [RejectRow]
    var installs: [InstallsRow]
    var profileSwitches: [ProfileSwitchRow]
    var quizAnswers: [QuizAnswerRow]

    /// Computes every metric from the merged partial of a whole run.
    init(
        merged partial: PartialAggregate, files: [InputFile], bytesRead: Int, bytesDecoded: Int,
        timeZone: ReportingTimeZone
    ) {
        let days = timeZone.makeDayResolver()
        quality = QualityReport(partial: partial, files: files.count, bytesRead: bytesRead, bytesDecoded: bytesDecoded)
        rejects = RejectRow.rows(from: partial, files: files)
        installs = InstallsTable.rows(from: partial, days: days)
        profileSwitches = ProfileSwitchesTable.rows(from: partial, days: days)
        quizAnswers = QuizAnswersTable.rows(from: partial)
    }
}




