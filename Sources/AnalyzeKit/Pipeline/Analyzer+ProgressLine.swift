/// The text of the progress line shown on a terminal and the durations of
/// the summary line, kept here (not in the executable) so they are tested.
extension Analyzer.Progress {
    /// The progress line for this moment of a run `elapsed` seconds old, cut
    /// to fit one row of a terminal `columns` wide (0 or less: the terminal
    /// did not say, taken as 80): what was decoded and how fast, lines per
    /// second and, when the inputs' stored size is known, how much of it was
    /// read and an ETA.
    public func line(elapsed: Double, columns: Int) -> String {
        let text = Self.text(
            decoded: decodedBytes.load(ordering: .relaxed), stored: storedBytes.load(ordering: .relaxed),
            total: totalBytes.load(ordering: .relaxed), lines: lines.load(ordering: .relaxed),
            elapsed: max(elapsed, 0.001))
        return Self.fittingOneRow(text, columns: columns)
    }

    /// The line's text. `total` ≤ 0: the stored size is unknown (standard
    /// input, a FIFO), so no share read and no ETA. An input that grew
    /// since its size was taken reads as 100 %, without an ETA.
    static func text(decoded: Int, stored: Int, total: Int, lines: Int, elapsed: Double) -> String {
        var text = "analyze: \(formatBytes(Double(decoded))) decoded, \(formatBytes(Double(decoded) / elapsed))/s, "
            + "\(Int(Double(lines) / elapsed)) lines/s"
        if total > 0 && stored > 0 {
            if stored < total {
                let eta = elapsed * Double(total - stored) / Double(stored)
                text += ", \(100 * stored / total)% read, ETA \(formatSeconds(eta))"
            } else {
                text += ", 100% read"
            }
        }
        return text
    }

    /// `text` cut to fit one row of a terminal `columns` wide, the last
    /// column left free: a line that wraps cannot be erased by `\r` and
    /// `ESC [K`, which clear only the row the cursor is on. (The text is ASCII.)
    /// A width of 0 or less is unknown (a pseudo-terminal nobody sized
    /// reports 0 columns) and taken as 80.
    static func fittingOneRow(_ text: String, columns: Int) -> String {
        let room = max((columns > 0 ? columns : 80) - 1, 1)
        return text.utf8.count <= room ? text : String(decoding: text.utf8.prefix(room), as: UTF8.self)
    }

    /// A byte count in binary units, with one decimal below 10 of a unit
    /// (`512 B`, `7.5 KiB`, `12 MiB`, `1.2 GiB`): a slow pipe reads as KiB,
    /// not as 0 MiB.
    static func formatBytes(_ bytes: Double) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"]
        var value = max(bytes, 0)
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        let tenths = Int((value * 10).rounded())
        if unit == 0 || tenths >= 100 { return "\(Int(value.rounded())) \(units[unit])" }
        return "\(tenths / 10).\(tenths % 10) \(units[unit])"
    }

    /// Seconds with one decimal (`12.3 s`); a negative duration reads as 0,
    /// and one past 10¹⁵ s (an ETA from a few bytes of a huge input) as that.
    public static func formatSeconds(_ seconds: Double) -> String {
        let tenths = Int((min(max(seconds, 0), 1e15) * 10).rounded())
        return "\(tenths / 10).\(tenths % 10) s"
    }
}
