/// One SPEC §4 output file: its name, its header, and how its rows are
/// written, so that the text can be streamed to disk (`OutputDirectory`) or
/// gathered whole (`AnalysisResult.csvFiles()`, the tests) by the same code.
struct CSVFile {
    let name: String
    let header: [String]
    /// Writes the rows after the header.
    let rows: (inout CSVWriter) -> Void
}
