/// One row of `rejects.csv`.
public struct RejectRow: Equatable, Sendable {
    public var file: String
    public var line: Int
    public var reason: RejectReason
}

extension RejectRow {
    /// Turns the sampled reject positions into file names and 1-based physical
    /// line numbers, from how many lines each chunk held.
    static func rows(from partial: PartialAggregate, files: [InputFile]) -> [RejectRow] {
        let chunks = partial.chunkLines.sorted { $0.sequence < $1.sequence }
        var firstLine: [Int: (fileIndex: Int, line: Int)] = [:]
        var currentFile = -1
        var nextLine = 1
        for chunk in chunks {
            if chunk.fileIndex != currentFile {
                currentFile = chunk.fileIndex
                nextLine = 1
            }
            firstLine[chunk.sequence] = (chunk.fileIndex, nextLine)
            nextLine += chunk.lineCount
        }
        return partial.rejectSample.map { entry in
            let start = firstLine[Int(entry.position >> 32)]!
            return RejectRow(
                file: files[start.fileIndex].displayName,
                line: start.line + Int(entry.position & 0xFFFF_FFFF),
                reason: entry.reason)
        }
    }
}

/// A rejected line: where it is (input order) and why.
struct RejectEntry {
    var position: UInt64
    var reason: RejectReason
}

/// How many physical lines one chunk held, to turn positions into line numbers.
struct ChunkLines {
    var sequence: Int
    var fileIndex: Int
    var lineCount: Int
}
