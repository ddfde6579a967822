/// What a run tells its user beyond the results: warnings about inputs that
/// are probably not what was meant, and the message of a reject rate over
/// `--max-reject-rate`. Like every message, they name files and counts, never
/// input content.
extension Analyzer {
    /// Warnings about a finished run: files skipped in input directories
    /// that look like exports in another form, inputs in a format analyze
    /// does not read, and a run whose every line was rejected (with exit 0 by
    /// default, since `--max-reject-rate` is 1.0, and a report of nothing).
    /// Without `quality`, the inputs only.
    static func warnings(
        skippedLookalikes: [(directory: String, names: [String])],
        foreignInputs: [(file: String, format: ForeignFormat)], quality: QualityReport?
    ) -> [String] {
        var warnings = skippedLookalikes.map { directory, names in
            let what = names.count == 1 ? "1 file in '\(directory)' that looks like an export but is"
                : "\(names.count) files in '\(directory)' that look like exports but are"
            return "skipped \(what) not named \(InputFile.directoryPatterns) (\(InputFile.listed(names))); "
                + "a directory contributes only those"
        }
        warnings += foreignInputs.map { $0.format.warning(about: $0.file) }
        if let quality, quality.lines > 0 && quality.rejected == quality.lines {
            warnings.append(
                (quality.lines == 1 ? "the only line was rejected" : "every one of the \(quality.lines) lines was rejected")
                    + " (\(quality.rejectionCounts)); is this an Adapty event export? rejects.csv says which line failed and why")
        }
        return warnings
    }

    /// Exit 3's message: the rate, the reasons and what to do next.
    static func rejectRateMessage(quality: QualityReport, limit: RejectRate) -> String {
        "\(quality.rejected) of \(quality.lines) lines rejected (\(percent(quality.rejected, of: quality.lines)): "
            + "\(quality.rejectionCounts)), more than --max-reject-rate \(limit); no output written "
            + "(run without --max-reject-rate to see them in rejects.csv)"
    }

    /// `part` ÷ `whole` as a percentage with two decimals, rounded half up;
    /// "< 0.01 %" for a share too small to show as more than none, and
    /// "> 99.99 %" for one too large to show as less than all.
    static func percent(_ part: Int, of whole: Int) -> String {
        guard whole > 0 else { return "0.00 %" }
        let (product, overflow) = part.multipliedReportingOverflow(by: 10_000)
        let hundredths = overflow
            ? Int((Double(part) / Double(whole) * 10_000).rounded())
            : (product + whole / 2) / whole
        if hundredths == 0 && part > 0 { return "< 0.01 %" }
        if hundredths == 10_000 && part < whole { return "> 99.99 %" }
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction) %"
    }
}

extension QualityReport {
    /// The rejections by reason, in the SPEC's order of reasons, those with
    /// none left out: "invalid_json 60, missing_field 20".
    var rejectionCounts: String {
        RejectReason.allCases.compactMap { reason in
            let count = rejectedByReason[Int(reason.rawValue)]
            return count > 0 ? "\(reason.name) \(count)" : nil
        }.joined(separator: ", ")
    }
}
