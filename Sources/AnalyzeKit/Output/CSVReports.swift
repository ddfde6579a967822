/// Renders an ``AnalysisResult`` as the SPEC §4 CSV files.
extension AnalysisResult {
    /// The output files, by name, with their complete contents.
    public func csvFiles() -> [(name: String, contents: [UInt8])] {
        [
            ("installs.csv", installsCSV()),
            ("profile_switches.csv", profileSwitchesCSV()),
            ("quiz_answers.csv", quizAnswersCSV()),
            ("quality.csv", qualityCSV()),
            ("rejects.csv", rejectsCSV()),
        ]
    }

    /// One row per day from the first install day to the last, the days
    /// without an install as zeros (SPEC §4.1).
    func installsCSV() -> [UInt8] {
        var csv = CSVWriter(header: ["date", "by_device_id", "by_customer_user_id", "by_profile_id"])
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
        return csv.bytes
    }

    func profileSwitchesCSV() -> [UInt8] {
        var csv = CSVWriter(header: ["date", "trigger", "switches", "devices"])
        for row in profileSwitches {
            csv.row([CivilDate(dayNumber: row.day).description, row.trigger.name, "\(row.switches)", "\(row.devices)"])
        }
        return csv.bytes
    }

    func quizAnswersCSV() -> [UInt8] {
        var csv = CSVWriter(header: [
            "onboarding_id", "element_id", "question_type", "option_id", "option_value", "option_label",
            "respondents", "share", "selections",
        ])
        for row in quizAnswers {
            csv.row(bytes: [
                row.onboardingID, row.elementID, Array(row.questionType.utf8), row.optionID, row.optionValue,
                row.optionLabel, Array("\(row.respondents)".utf8), Array(row.share.utf8), Array("\(row.selections)".utf8),
            ])
        }
        return csv.bytes
    }

    func qualityCSV() -> [UInt8] {
        var csv = CSVWriter(header: ["metric", "value"])
        for (metric, value) in quality.rows { csv.row([metric, value]) }
        return csv.bytes
    }

    func rejectsCSV() -> [UInt8] {
        var csv = CSVWriter(header: ["file", "line", "reason"])
        for row in rejects { csv.row([row.file, "\(row.line)", row.reason.name]) }
        return csv.bytes
    }
}
