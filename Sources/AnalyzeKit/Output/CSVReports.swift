/// Renders an ``AnalysisResult`` as the SPEC §4 CSV files.
extension AnalysisResult {
    /// The output files, by name, with their complete contents.
    public func csvFiles() -> [(name: String, contents: [UInt8])] {
        csvOutputs.map { ($0.name, Self.text(of: $0)) }
    }

    /// The five files in the order they are written.
    var csvOutputs: [CSVFile] {
        [installsFile, profileSwitchesFile, quizAnswersFile, qualityFile, rejectsFile]
    }

    var installsFile: CSVFile {
        CSVFile(name: "installs.csv", header: ["date", "by_device_id", "by_customer_user_id", "by_profile_id"],
                rows: writeInstallsRows)
    }
    var profileSwitchesFile: CSVFile {
        CSVFile(name: "profile_switches.csv", header: ["date", "trigger", "switches", "devices"],
                rows: writeProfileSwitchesRows)
    }
    var quizAnswersFile: CSVFile {
        CSVFile(name: "quiz_answers.csv", header: [
            "onboarding_id", "element_id", "question_type", "option_id", "option_value", "option_label",
            "respondents", "share", "selections",
        ], rows: writeQuizAnswersRows)
    }
    var qualityFile: CSVFile {
        CSVFile(name: "quality.csv", header: ["metric", "value"], rows: writeQualityRows)
    }
    var rejectsFile: CSVFile {
        CSVFile(name: "rejects.csv", header: ["file", "line", "reason"], rows: writeRejectsRows)
    }

    func installsCSV() -> [UInt8] { Self.text(of: installsFile) }
    func profileSwitchesCSV() -> [UInt8] { Self.text(of: profileSwitchesFile) }
    func quizAnswersCSV() -> [UInt8] { Self.text(of: quizAnswersFile) }
    func qualityCSV() -> [UInt8] { Self.text(of: qualityFile) }
    func rejectsCSV() -> [UInt8] { Self.text(of: rejectsFile) }

    private static func text(of file: CSVFile) -> [UInt8] {
        var csv = CSVWriter(header: file.header)
        file.rows(&csv)
        return csv.bytes
    }

    /// One row per day from the first install day to the last, the days
    /// without an install as zeros (SPEC §4.1).
    private func writeInstallsRows(_ csv: inout CSVWriter) {
        func write(_ row: InstallsRow) {
            csv.field(CivilDate(dayNumber: row.day))
            csv.field(row.byDeviceID)
            csv.field(row.byCustomerUserID)
            csv.field(row.byProfileID)
            csv.endRow()
        }
        var nextDay = installs.first?.day ?? 0
        for row in installs {
            for day in nextDay..<row.day { write(InstallsRow(day: day)) }
            write(row)
            nextDay = row.day + 1
        }
    }

    private func writeProfileSwitchesRows(_ csv: inout CSVWriter) {
        for row in profileSwitches {
            csv.row([CivilDate(dayNumber: row.day).description, row.trigger.name, "\(row.switches)", "\(row.devices)"])
        }
    }

    private func writeQuizAnswersRows(_ csv: inout CSVWriter) {
        // Field by field, with no array or string made per row: a quiz of
        // millions of distinct options has a row for each. The texts are
        // read where the interner keeps them.
        let strings = quizAnswers.strings
        func text(_ id: UInt32) { strings.withBytes(id) { csv.field(text: $0) } }
        for row in quizAnswers.rows {
            text(row.onboardingID)
            text(row.elementID)
            row.questionType.name.withUTF8Buffer { csv.field(text: $0) }
            text(row.optionID)
            text(row.optionValue)
            text(row.optionLabel)
            csv.field(Int(row.respondents))
            csv.field(row.shareInTenThousandths, decimals: 4)
            csv.field(Int(row.selections))
            csv.endRow()
        }
    }

    private func writeQualityRows(_ csv: inout CSVWriter) {
        for (metric, value) in quality.rows { csv.row([metric, value]) }
    }

    private func writeRejectsRows(_ csv: inout CSVWriter) {
        for row in rejects { csv.row([row.file, "\(row.line)", row.reason.name]) }
    }
}
