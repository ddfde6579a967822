import CZlib

/// Checks gzip members' CRC-32 and ISIZE from checksum segments that arrive
/// out of order, away from the thread that inflates.
///
/// The inflating worker only reads each member's trailer (``MemberEnd``);
/// the worker that parses a chunk computes the CRC-32 of its text
/// (``ChecksumSegment``), so the serial inflate does not spend its time on
/// it. Segments of one input are folded in chunk order (a CRC-32 of two
/// parts is `crc32_combine` of theirs), those that arrive early wait, and a
/// member's trailer is compared once every byte before its end is folded.
/// The first mismatch of an input is its error, in the words and at the
/// offset the inflater would have named.
///
/// Not thread-safe: ``ChunkFeed`` calls it under its lock (once per chunk).
struct ChecksumLedger {
    /// One input's state: the next chunk to fold, chunks that came early,
    /// and the current member's CRC-32 and length so far.
    private struct Input {
        var nextChunk = 0
        var waiting: [Int: [ChecksumSegment]] = [:]
        var crc: UInt32 = 0
        var length: UInt32 = 0
        var failed = false

        mutating func fold(_ segments: [ChecksumSegment], chunk: Int, name: String) -> AnalyzeError? {
            guard !failed else { return nil }
            guard chunk == nextChunk else {
                assert(chunk > nextChunk && waiting[chunk] == nil, "chunk \(chunk) folded twice")
                waiting[chunk] = segments
                return nil
            }
            var next: [ChecksumSegment]? = segments
            while let segments = next {
                nextChunk += 1
                for segment in segments {
                    crc = UInt32(truncatingIfNeeded: crc32_combine(UInt(crc), UInt(segment.crc), Int(segment.length)))
                    length &+= UInt32(truncatingIfNeeded: segment.length)
                    guard let end = segment.end else { continue }
                    do {
                        try MemberCheck.compare(trailer: end.trailer, crc: crc, length: length)
                    } catch {
                        failed = true
                        waiting = [:]
                        return GzipInflater.damage(error.reason, in: name, at: end.offset)
                    }
                    crc = 0
                    length = 0
                }
                next = waiting.removeValue(forKey: nextChunk)
            }
            return nil
        }
    }

    private var inputs: [Int: Input] = [:]

    /// Folds the segments of input `file`'s chunk number `chunk` (its place
    /// in the input: 0, 1, …, each once). Returns the error of the first
    /// member whose trailer disagrees, once (`name` names the input).
    mutating func fold(_ segments: [ChecksumSegment], file: Int, chunk: Int, name: String) -> AnalyzeError? {
        inputs[file, default: Input()].fold(segments, chunk: chunk, name: name)
    }

    /// Decoded bytes of inputs that have not failed which were folded after
    /// their last member end, or still wait for a chunk before them: 0 once
    /// every chunk of every input that ended well was folded.
    var bytesUnchecked: Int {
        inputs.values.reduce(0) { total, input in
            guard !input.failed else { return total }
            let waiting = input.waiting.values.reduce(0) { $0 + $1.reduce(0) { $0 + $1.length } }
            return total + Int(input.length) + waiting
        }
    }
}
