/// What a run tells its user beyond the results: warnings about inputs that
/// are probably not what was meant, and the message of a reject rate over
/// `--max-reject-rate`. Like every message, they name files and counts, never
/// input content.
extension Analyzer {
    /// Warnings about a finished run: files skipped in input directories
    /// that look like exports in another form, inputs in a format analyze
    /// does not read, and a run whose every line was rejected (with exit 0 by
    /// default, since `--max-reject-rate` is 1.0, and a report of nothing).
    /// Without `quality`, the inputs only; `rejectRowsListed` is the number
    /// of rows rejects.csv lists (only read when every line was rejected).
    static func warnings(
        skippedLookalikes: [(directory: String, names: [String])],
        foreignInputs: [(file: String, format: ForeignFormat)], quality: QualityReport?, rejectRowsListed: Int = 1
    ) -> [String] {
        // One entry per directory, however often it was named (`InputFile.expand`).
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
                    + " (\(quality.rejectionCounts)); is this an Adapty event export? "
                    + (rejectRowsListed > 0 ? "rejects.csv says which line failed and why"
                        : "rejects.csv lists none of them with --max-reject-rows 0"))
        }
        return warnings
    }

    /// Exit 3's message: the rate, the reasons and what to do next. The rate
    /// has as many decimals as it takes to show it above the limit (50.001 %
    /// against 0.5, where two decimals would say 50.00 %).
    static func rejectRateMessage(quality: QualityReport, limit: RejectRate) -> String {
        "\(quality.rejected) of \(quality.lines) \(quality.lines == 1 ? "line" : "lines") rejected "
            + "(\(percent(quality.rejected, of: quality.lines, above: limit)): \(quality.rejectionCounts)), "
            + "more than --max-reject-rate \(limit); no output written (run without --max-reject-rate to see them in rejects.csv)"
    }

    /// `part` ÷ `whole` (which exceeds `limit`) as a percentage, its digits
    /// cut (not rounded: 99 999 of 100 000 is not "100.00 %") after two
    /// decimals, or after the first that shows it above the limit, fifteen
    /// at most.
    static func percent(_ part: Int, of whole: Int, above limit: RejectRate) -> String {
        guard whole > 0 else { return "0.00 %" }
        var decimals = 2
        var scaled = scaledPercent(part, of: whole, decimals: decimals)
        // The shown value is scaled ÷ 10^(decimals + 2) as a share of one.
        while decimals < 15 && !limit.isExceeded(rejected: scaled, lines: power(of: 10, decimals + 2)) {
            decimals += 1
            scaled = scaledPercent(part, of: whole, decimals: decimals)
        }
        return formatted(scaled, decimals: decimals)
    }

    /// `part` ÷ `whole` × 100 × 10^`decimals`, cut to an integer; `part` at
    /// most `whole`, `decimals` at most 16 (computed in 128 bits: no overflow).
    private static func scaledPercent(_ part: Int, of whole: Int, decimals: Int) -> Int {
        whole.dividingFullWidth(part.multipliedFullWidth(by: power(of: 10, decimals + 2))).quotient
    }

    private static func formatted(_ scaled: Int, decimals: Int) -> String {
        let unit = power(of: 10, decimals)
        let fraction = String(scaled % unit)
        return "\(scaled / unit).\(String(repeating: "0", count: decimals - fraction.count))\(fraction) %"
    }

    private static func power(of base: Int, _ exponent: Int) -> Int {
        (0..<exponent).reduce(1) { product, _ in product * base }
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
